import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsNotEmpty, IsString, IsUrl, Matches, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { excerpt } from '@arbor/platform';
import { headerCountProblem, headerProblem, itemRolesProblem, PROJECT_SLUG, SERVER_ID, toolRateLimitsProblem, UPSTREAM_NAME } from '../../registry/registry-rules';
import { readUpstreamAuth } from '../../credentials/upstream-auth';
import { AGENT_AUTH_TYPES } from '../../agents/agent-definition';

export const IsUpstreamName = () =>
  applyDecorators(IsString(), Matches(UPSTREAM_NAME, { message: '$property must be 1 to 63 lower-case letters, digits, _ and -, starting with a letter or digit' }));

export const IsServerId = () =>
  applyDecorators(IsString(), Matches(SERVER_ID, { message: '$property must be 1 to 63 lower-case letters, digits and -, starting with a letter or digit' }));

export const IsProjectSlug = () =>
  applyDecorators(IsString(), Matches(PROJECT_SLUG, { message: '$property must be a project slug: 1 to 64 lower-case letters, digits and hyphens' }));

export const IsUpstreamUrl = () =>
  applyDecorators(IsString(), IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: '$property must be an http(s) URL' }));

export const IsTransport = () => applyDecorators(IsIn(['streamable-http', 'sse']));

export const IsTimeoutMs = () => applyDecorators(IsInt(), Min(1), Max(3_600_000));

export const IsMaxConcurrency = () => applyDecorators(IsInt(), Min(1), Max(10_000));

export const IsDisplayName = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(200));

export const IsDescription = () => applyDecorators(IsString(), MaxLength(2000));

/** Guardrail names of MCPGW_CONFIG's `guardrails:` (whether each is configured is the controller's to say). */
export const IsGuardrailNames = () => applyDecorators(IsArray(), ArrayMaxSize(50), IsString({ each: true }), IsNotEmpty({ each: true }), MaxLength(200, { each: true }));

/**
 * An upstream's `auth` (the credentials module's rules, as MCPGW_CONFIG's); messages name fields,
 * never the secret. `secretMayBeStored` on a change: the controller checks the secret it keeps.
 */
export const IsUpstreamAuth = (options: { secretMayBeStored?: boolean } = {}) =>
  ValidateBy({
    name: 'isUpstreamAuth',
    validator: {
      validate: (value: unknown) => authProblems(value, options).length === 0,
      defaultMessage: (args) => authProblems(args?.value, options).join('; ') || '$property is invalid',
    },
  });

function authProblems(value: unknown, options: { secretMayBeStored?: boolean } = {}): string[] {
  const problems: string[] = [];
  readUpstreamAuth(value, 'auth', (path, message) => problems.push(`${path} ${message}`), options);
  return problems;
}

/** An agent's `auth`: `none`, `static` with headers, or the credentials module's per-caller `token_exchange` and `oauth` (an upstream's rules). */
export const IsAgentAuth = () =>
  ValidateBy({
    name: 'isAgentAuth',
    validator: {
      validate: (value: unknown) => agentAuthProblems(value).length === 0,
      defaultMessage: (args) => agentAuthProblems(args?.value).join('; ') || '$property is invalid',
    },
  });

function agentAuthProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`auth must be a mapping with a type (${AGENT_AUTH_TYPES.join(', ')})`];
  const entry = value as Record<string, unknown>;
  const type = entry['type'];
  if (type === 'token_exchange' || type === 'oauth') return authProblems(value);
  if (type !== 'none' && type !== 'static') return [`auth.type must be one of ${AGENT_AUTH_TYPES.join(', ')}`];
  const problems = Object.keys(entry)
    .filter((key) => key !== 'type' && key !== 'headers')
    .map((key) => `auth.${excerpt(key)} is not a setting of ${type} auth (type, headers)`);
  const headers = entry['headers'] === undefined ? undefined : headersProblem(entry['headers']);
  if (headers !== undefined) problems.push(`auth.headers: ${headers}`);
  return problems;
}

/** `{name: value}`, values strings; the message names the header, never the value. */
export const IsUpstreamHeaders = () =>
  ValidateBy({
    name: 'isUpstreamHeaders',
    validator: {
      validate: (value: unknown) => headersProblem(value) === undefined,
      defaultMessage: (args) => `$property: ${headersProblem(args?.value) ?? 'invalid'}`,
    },
  });

function headersProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object of header names to values';
  const tooMany = headerCountProblem(Object.keys(value).length);
  if (tooMany !== undefined) return tooMany;
  const seen = new Set<string>();
  for (const [name, headerValue] of Object.entries(value)) {
    const problem = headerProblem(name, headerValue);
    if (problem !== undefined) return problem;
    if (seen.has(name.toLowerCase())) return `"${excerpt(name)}" is given twice (header names are case-insensitive)`;
    seen.add(name.toLowerCase());
  }
  return undefined;
}

/** `'*'` or a list of names. */
export const IsSelectionNames = () =>
  ValidateBy({
    name: 'isSelectionNames',
    validator: {
      validate: (value: unknown) =>
        value === '*' || (Array.isArray(value) && value.length <= 10_000 && value.every((item) => typeof item === 'string' && item !== '' && item.length <= 2000)),
      defaultMessage: () => "$property must be '*' or a list of names",
    },
  });

/** `{name: "operator" | "viewer"}`: tool_roles, resource_roles, prompt_roles. */
export const IsItemRoles = () =>
  ValidateBy({
    name: 'isItemRoles',
    validator: {
      validate: (value: unknown) => itemRolesProblem(value) === undefined,
      defaultMessage: (args) => `$property: ${itemRolesProblem(args?.value) ?? 'invalid'}`,
    },
  });

/** `{tool: {per_minute: N}}`. */
export const IsToolRateLimits = () =>
  ValidateBy({
    name: 'isToolRateLimits',
    validator: {
      validate: (value: unknown) => toolRateLimitsProblem(value) === undefined,
      defaultMessage: (args) => `$property: ${toolRateLimitsProblem(args?.value) ?? 'invalid'}`,
    },
  });

/** Tool names an API key is scoped to (as its servers expose them, or `<upstream>__<tool>`). */
export const IsToolScope = () =>
  applyDecorators(IsArray(), ArrayMinSize(1), ArrayMaxSize(1000), IsString({ each: true }), IsNotEmpty({ each: true }), MaxLength(2000, { each: true }));
