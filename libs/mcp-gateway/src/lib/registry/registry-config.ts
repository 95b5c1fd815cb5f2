import { ConfigError, ConfigProblem, parsedUrl, parseYamlConfig, readYamlConfigFile, SettingReader, UnsetVariable } from '@arbor/config';
import { type GuardrailDefinition, readGuardrails } from '@arbor/guardrails';
import { TOOL_CALL_GUARDRAILS } from '../guardrails/tool-call-scope';
import { readUpstreamAuth, type UpstreamAuth } from '../credentials/upstream-auth';
import type { ItemRole, UpstreamDefinition, UpstreamSelection, UpstreamTransport, VirtualServerDefinition } from './server-registry';
import {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_TIMEOUT_MS,
  headerCountProblem,
  headerProblem,
  itemRolesProblem,
  PROJECT_SLUG,
  SERVER_ID,
  toolRateLimits,
  toolRateLimitsProblem,
  UPSTREAM_NAME,
} from './registry-rules';
import { AGENT_AUTH_TYPES, type AgentAuth, type AgentDefinition, NO_AUTH } from '../agents/agent-definition';

/** The MCPGW_CONFIG file, checked: upstreams and virtual servers to sync into the database, and the guardrails of tool calls. */
export interface RegistryConfig {
  upstreams: UpstreamDefinition[];
  servers: VirtualServerDefinition[];
  /** A2A agents (`agents:`), each of a project. */
  agents: AgentDefinition[];
  /** LiteLLM's `guardrails:` list, of the modes of tool calls (`pre_mcp_call`, `post_mcp_call`). */
  guardrails: GuardrailDefinition[];
}

export const EMPTY_REGISTRY_CONFIG: RegistryConfig = { upstreams: [], servers: [], agents: [], guardrails: [] };

const VARIABLE = 'MCPGW_CONFIG';
const TOP_KEYS = ['upstreams', 'servers', 'agents', 'guardrails'];
const AGENT_KEYS = ['name', 'url', 'project', 'description', 'auth'];
const AUTH_KEYS = ['type', 'headers'];
const UPSTREAM_KEYS = ['name', 'url', 'transport', 'headers', 'auth', 'timeout', 'max_concurrency'];
const SERVER_KEYS = ['id', 'project', 'name', 'description', 'upstreams', 'guardrails', 'tool_roles', 'resource_roles', 'prompt_roles', 'tool_rate_limits', 'audit_payloads'];
const SELECTION_KEYS = ['upstream', 'agent', 'tools', 'resources', 'prompts'];
const TRANSPORTS: UpstreamTransport[] = ['streamable-http', 'sse'];

/** Reads and checks the file MCPGW_CONFIG names; throws ConfigError with one line per problem. */
export function loadRegistryConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): RegistryConfig {
  return checkRegistryConfig(readYamlConfigFile(path, { variable: VARIABLE, env }));
}

/**
 * Checks an MCPGW_CONFIG document; urls and header values written `os.environ/NAME` come from `env`.
 * Whether a server's upstreams exist is checked when the file is synced (they may be API-made).
 */
export function parseRegistryConfig(text: string, env: NodeJS.ProcessEnv = process.env): RegistryConfig {
  return checkRegistryConfig(parseYamlConfig(text, { variable: VARIABLE, env }));
}

/** The document as @arbor/config's YAML reader gave it (`os.environ/NAME` already resolved). */
function checkRegistryConfig(document: Record<string, unknown>): RegistryConfig {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ variable: VARIABLE, message: `${path}: ${message}` });
  const read = new Reader(problem);
  const root = read.object(document, '(top level)', TOP_KEYS) ?? {};
  const guardrails = readGuardrails(root['guardrails'], problem, TOOL_CALL_GUARDRAILS);
  const guardrailNames = guardrails.map((guardrail) => guardrail.name);

  const upstreams: UpstreamDefinition[] = [];
  read.list(root['upstreams'], 'upstreams').forEach((raw, index) => {
    const at = `upstreams[${index}]`;
    const entry = read.object(raw, at, UPSTREAM_KEYS);
    if (!entry) return;
    const name = read.pattern(entry['name'], `${at}.name`, UPSTREAM_NAME, 'lower-case letters, digits, _ and -, starting with a letter or digit, at most 63');
    const url = read.url(entry['url'], `${at}.url`);
    const transport = read.oneOf(entry['transport'], `${at}.transport`, TRANSPORTS) ?? 'streamable-http';
    const headers = read.headers(entry['headers'], `${at}.headers`);
    const auth = read.auth(entry['auth'], `${at}.auth`);
    const timeout = read.positive(entry['timeout'], `${at}.timeout`);
    const maxConcurrency = read.positiveInteger(entry['max_concurrency'], `${at}.max_concurrency`);
    if (name === undefined || url === undefined || headers === undefined || auth === undefined) return;
    if (upstreams.some((other) => other.name === name)) problem(`${at}.name`, `"${name}" is used by an earlier upstream`);
    upstreams.push({
      name,
      url,
      transport,
      headers,
      ...(auth.type !== 'static' ? { auth } : {}),
      timeoutMs: timeout !== undefined ? Math.round(timeout * 1000) : DEFAULT_TIMEOUT_MS,
      maxConcurrency: maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
    });
  });

  const agents: AgentDefinition[] = [];
  read.list(root['agents'], 'agents').forEach((raw, index) => {
    const at = `agents[${index}]`;
    const entry = read.object(raw, at, AGENT_KEYS);
    if (!entry) return;
    const name = read.pattern(entry['name'], `${at}.name`, UPSTREAM_NAME, 'lower-case letters, digits, _ and -, starting with a letter or digit, at most 63');
    const url = read.url(entry['url'], `${at}.url`);
    const project = read.pattern(entry['project'], `${at}.project`, PROJECT_SLUG, 'a project slug: 1 to 64 lower-case letters, digits and hyphens');
    const description = read.string(entry['description'], `${at}.description`);
    const auth = read.agentAuth(entry['auth'], `${at}.auth`);
    if (name === undefined || url === undefined || project === undefined || auth === undefined) return;
    if (agents.some((other) => other.name === name)) problem(`${at}.name`, `"${name}" is used by an earlier agent`);
    if (upstreams.some((upstream) => upstream.name === name)) problem(`${at}.name`, `"${name}" is the name of an upstream too; agents and upstreams share one namespace`);
    agents.push({ name, url, project, ...(description !== undefined ? { description } : {}), auth });
  });

  const servers: VirtualServerDefinition[] = [];
  read.list(root['servers'], 'servers').forEach((raw, index) => {
    const at = `servers[${index}]`;
    const entry = read.object(raw, at, SERVER_KEYS);
    if (!entry) return;
    const id = read.pattern(entry['id'], `${at}.id`, SERVER_ID, 'lower-case letters, digits and -, starting with a letter or digit, at most 63');
    const project = read.pattern(entry['project'], `${at}.project`, PROJECT_SLUG, 'a project slug: 1 to 64 lower-case letters, digits and hyphens');
    const name = entry['name'] === undefined ? id : read.string(entry['name'], `${at}.name`);
    const description = read.string(entry['description'], `${at}.description`);
    const selections: UpstreamSelection[] = [];
    read.list(entry['upstreams'], `${at}.upstreams`).forEach((rawSelection, selectionIndex) => {
      const selectionAt = `${at}.upstreams[${selectionIndex}]`;
      const selection = read.object(rawSelection, selectionAt, SELECTION_KEYS);
      if (!selection) return;
      if (selection['agent'] !== undefined) {
        // An agent is one tool: nothing to select from it.
        const extra = ['upstream', 'tools', 'resources', 'prompts'].filter((key) => selection[key] !== undefined);
        if (extra.length > 0) problem(selectionAt, `an agent entry takes only "agent", not ${extra.map((key) => `"${key}"`).join(', ')}`);
        const agent = read.string(selection['agent'], `${selectionAt}.agent`, true);
        if (agent === undefined) return;
        if (selections.some((other) => other.upstream === agent)) problem(`${selectionAt}.agent`, `"${agent}" is included twice`);
        selections.push({ upstream: agent, kind: 'agent', tools: '*', resources: [], prompts: [] });
        return;
      }
      const upstream = read.string(selection['upstream'], `${selectionAt}.upstream`, true);
      const tools = read.selection(selection['tools'], `${selectionAt}.tools`);
      const resources = read.selection(selection['resources'], `${selectionAt}.resources`);
      const prompts = read.selection(selection['prompts'], `${selectionAt}.prompts`);
      if (upstream === undefined) return;
      if (selections.some((other) => other.upstream === upstream))
        problem(`${selectionAt}.upstream`, `"${upstream}" is selected twice; list everything it should expose in one entry`);
      selections.push({ upstream, tools, resources, prompts });
    });
    const named = read.list(entry['guardrails'], `${at}.guardrails`).flatMap((rawName, nameIndex) => {
      const guardrail = read.string(rawName, `${at}.guardrails[${nameIndex}]`, true);
      if (guardrail !== undefined && !guardrailNames.includes(guardrail)) {
        const there = guardrailNames.length > 0 ? `there are ${guardrailNames.map((known) => `"${known}"`).join(', ')}` : 'the file has none';
        problem(`${at}.guardrails[${nameIndex}]`, `"${guardrail}" is not a guardrail of this file's guardrails: list (${there})`);
      }
      return guardrail === undefined ? [] : [guardrail];
    });
    const toolRoles = read.itemRoles(entry['tool_roles'], `${at}.tool_roles`);
    const resourceRoles = read.itemRoles(entry['resource_roles'], `${at}.resource_roles`);
    const promptRoles = read.itemRoles(entry['prompt_roles'], `${at}.prompt_roles`);
    const rateLimits = read.toolRateLimits(entry['tool_rate_limits'], `${at}.tool_rate_limits`);
    const auditPayloads = read.boolean(entry['audit_payloads'], `${at}.audit_payloads`);
    if (id === undefined || project === undefined || name === undefined) return;
    if (servers.some((other) => other.id === id)) problem(`${at}.id`, `"${id}" is used by an earlier server`);
    servers.push({
      id,
      project,
      name,
      ...(description !== undefined ? { description } : {}),
      selections,
      ...(named.length > 0 ? { guardrails: [...new Set(named)] } : {}),
      ...(toolRoles ? { toolRoles } : {}),
      ...(resourceRoles ? { resourceRoles } : {}),
      ...(promptRoles ? { promptRoles } : {}),
      ...(rateLimits ? { toolRateLimits: rateLimits } : {}),
      ...(auditPayloads ? { auditPayloads } : {}),
    });
  });

  if (problems.length > 0) throw new ConfigError(problems);
  return { upstreams, servers, agents, guardrails };
}

/** The shared typed reads of @arbor/config, with the registry's own: upstream URLs, headers, selections. */
class Reader extends SettingReader {
  /** Required; may be `os.environ/NAME`, like the AI gateway's api_base: one file serves several environments. */
  override url(value: unknown, path: string): string | undefined {
    const text = this.string(value, path, true);
    if (text === undefined) return undefined;
    const url = parsedUrl(text);
    if (!url) this.problem(path, 'must be an http(s) URL');
    // Credentials belong in headers, which are stored encrypted; the URL is not.
    else if (url.username !== '' || url.password !== '') this.problem(path, 'must not carry a user name or password; put credentials in headers');
    else return text;
    return undefined;
  }

  /** Values may be `os.environ/NAME`; a problem names the header, never its value. */
  headers(value: unknown, path: string): Record<string, string> | undefined {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.problem(path, 'must be a mapping of header names to values');
      return undefined;
    }
    const tooMany = headerCountProblem(Object.keys(value as object).length);
    if (tooMany !== undefined) {
      this.problem(path, tooMany);
      return undefined;
    }
    const headers: Record<string, string> = {};
    let ok = true;
    for (const [name, resolved] of Object.entries(value as Record<string, unknown>)) {
      if (resolved instanceof UnsetVariable) {
        this.problem(`${path}.${name}`, resolved.message);
        ok = false;
        continue;
      }
      const wrong = headerProblem(name, resolved);
      if (wrong !== undefined) {
        this.problem(`${path}.${name}`, wrong);
        ok = false;
        continue;
      }
      if (Object.keys(headers).includes(name.toLowerCase())) {
        this.problem(`${path}.${name}`, 'is given twice (header names are case-insensitive)');
        ok = false;
      }
      headers[name.toLowerCase()] = resolved as string;
    }
    return ok ? headers : undefined;
  }

  /** The credentials module's reader; a value written `os.environ/NAME` whose variable is unset is named as such. */
  auth(value: unknown, path: string): UpstreamAuth | undefined {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const unset = Object.entries(value as Record<string, unknown>).filter(([, entry]) => entry instanceof UnsetVariable);
      for (const [key, entry] of unset) this.problem(`${path}.${key}`, (entry as UnsetVariable).message);
      if (unset.length > 0) return undefined;
    }
    return readUpstreamAuth(value, path, (at, message) => this.problem(at, message));
  }

  /** `{type: none}` (also when absent), `{type: static, headers: {…}}`, or an upstream's per-caller auth (token_exchange, oauth). */
  agentAuth(value: unknown, path: string): AgentAuth | undefined {
    if (value === undefined || value === null) return NO_AUTH;
    const type = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)['type'] : undefined;
    if (type === 'token_exchange' || type === 'oauth') return this.auth(value, path) as AgentAuth | undefined;
    const entry = this.object(value, path, AUTH_KEYS);
    if (!entry) return undefined;
    const kind = this.oneOf(entry['type'], `${path}.type`, [...AGENT_AUTH_TYPES]) ?? 'none';
    if (kind === 'none') {
      if (entry['headers'] !== undefined) this.problem(`${path}.headers`, 'headers need type: static');
      return NO_AUTH;
    }
    const headers = this.headers(entry['headers'], `${path}.headers`);
    if (headers === undefined) return undefined;
    if (Object.keys(headers).length === 0) this.problem(`${path}.headers`, 'type static needs at least one header');
    return { type: 'static', headers };
  }

  positiveInteger(value: unknown, path: string): number | undefined {
    const number = this.positive(value, path);
    if (number !== undefined && !Number.isInteger(number)) {
      this.problem(path, 'must be a whole number');
      return undefined;
    }
    return number;
  }

  /** `{name: "operator" | "viewer"}`; undefined when absent, empty or wrong (reported). */
  itemRoles(value: unknown, path: string): Record<string, ItemRole> | undefined {
    if (value === undefined || value === null) return undefined;
    const wrong = itemRolesProblem(value);
    if (wrong !== undefined) this.problem(path, wrong);
    return wrong === undefined && Object.keys(value as object).length > 0 ? { ...(value as Record<string, ItemRole>) } : undefined;
  }

  /** `{tool: {per_minute: N}}`, in the registry's shape; undefined when absent, empty or wrong (reported). */
  toolRateLimits(value: unknown, path: string): VirtualServerDefinition['toolRateLimits'] {
    if (value === undefined || value === null) return undefined;
    const wrong = toolRateLimitsProblem(value);
    if (wrong !== undefined) this.problem(path, wrong);
    return wrong === undefined && Object.keys(value as object).length > 0 ? toolRateLimits(value as Record<string, { per_minute: number }>) : undefined;
  }

  /** `'*'` (also when absent) or a list of names. */
  selection(value: unknown, path: string): '*' | string[] {
    if (value === undefined || value === null || value === '*') return '*';
    if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')) return [...new Set(value as string[])];
    this.problem(path, "must be '*' or a list of names");
    return [];
  }
}
