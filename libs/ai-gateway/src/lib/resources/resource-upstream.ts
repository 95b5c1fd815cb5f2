import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, openAiErrorFrom, ProviderError, providerAdapterFor, readAll, sendUpstream, type UpstreamResponse } from '@arbor/provider-adapters';
import type { GatewayDeployment } from '../config/gateway-config';
import { DeploymentRouter } from '../deployment-router';
import { badRequest, keyModelAccessDenied, unknownModel } from '../gateway-errors';
import { GatewayCaller, mayUseAlias } from '../keys/key-verifier';
import type { ResourceKind } from './owned-resource.entity';

// A JSON answer about a stored resource (a list, an object) is small; more is refused, not buffered.
const MAX_JSON_ANSWER_BYTES = 32 * 1024 * 1024;
/** The header naming the alias of a call that sends no `model` (an upload, a new vector store or thread). */
export const ALIAS_HEADER = 'x-arbor-model';

/** What a resource request sends upstream. */
export interface ResourceRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** The path below the provider's API root (`/files/file-abc/content`). */
  path: string;
  query?: URLSearchParams;
  json?: Record<string, unknown>;
  body?: Readable;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Requests about stored resources (files, batches, vector stores, assistants, threads) to the
 * account of one deployment, with that provider's address and auth (OpenAI's bearer key, Azure's
 * api-key and api-version); errors come back as the provider's, in OpenAI-format terms.
 */
@Injectable()
export class ResourceUpstream {
  constructor(private readonly deployments: DeploymentRouter) {}

  /**
   * The deployment a new resource goes to: the alias named (form field, `model`, or the
   * x-arbor-model header), else the one account that can hold it (see defaultAlias); checked
   * against the key's aliases. `provider`: LiteLLM's `custom_llm_provider` of the request, which
   * narrows the default to that provider's deployments.
   */
  deploymentFor(caller: GatewayCaller, named: string | undefined, kind: ResourceKind, provider?: string): GatewayDeployment {
    const alias = named ?? this.defaultAlias(caller, kind, provider);
    if (!mayUseAlias(caller, alias)) throw keyModelAccessDenied(alias);
    if (!this.deployments.has(alias)) throw unknownModel(alias);
    const deployment = this.deployments.pick(alias);
    if (!deployment) throw new ProviderError(503, 'server_error', `Every deployment of "${alias}" is cooling down; try again shortly.`, 'no_deployment_available');
    if (!providerAdapterFor(deployment.provider)?.resources) {
      throw badRequest(`The model "${alias}" is served by ${deployment.provider}, which offers no ${kind.replace('_', ' ')}s through this gateway.`, 'model');
    }
    return deployment;
  }

  /** The deployment a stored resource lives on; gone from the configuration, the resource cannot be reached. */
  deployment(id: string): GatewayDeployment {
    const deployment = this.deployments.deployment(id);
    if (!deployment) throw new ProviderError(503, 'server_error', 'The deployment that holds this resource is no longer configured.', 'deployment_removed');
    return deployment;
  }

  /**
   * The alias of a new resource that names none. The candidates are the key's aliases served by a
   * provider that stores resources (narrowed to `provider` when the request names one): when they
   * all reach one upstream account (provider, address and key: two aliases of one OpenAI key hold
   * the same files), the first of them; when they reach several, the `openai` account if it is
   * the only one, as LiteLLM sends files and batches to `custom_llm_provider: openai` unless told
   * otherwise. Otherwise 400 naming the aliases to choose from.
   */
  private defaultAlias(caller: GatewayCaller, kind: ResourceKind, provider: string | undefined): string {
    const accounts = new Map<string, { provider: string; aliases: string[] }>();
    for (const alias of this.deployments.aliases()) {
      if (alias.includes('*') || !mayUseAlias(caller, alias)) continue;
      for (const deployment of this.deploymentsOf(alias)) {
        if (!providerAdapterFor(deployment.provider)?.resources || (provider !== undefined && deployment.provider !== provider)) continue;
        const account = accountOf(deployment);
        const entry = accounts.get(account) ?? { provider: deployment.provider, aliases: [] };
        if (!entry.aliases.includes(alias)) entry.aliases.push(alias);
        accounts.set(account, entry);
      }
    }
    const all = [...accounts.values()];
    const openai = all.filter((account) => account.provider === 'openai');
    const chosen = all.length === 1 ? all[0] : provider === undefined && openai.length === 1 ? openai[0] : undefined;
    if (chosen) return chosen.aliases[0] as string;
    const what = kind.replace('_', ' ');
    const field = kind === 'file' ? 'the form field target_model_names or ' : '';
    const ask = `Name the model alias that holds the new ${what}: ${field}the ${ALIAS_HEADER} header`;
    if (all.length === 0) {
      const among = provider === undefined ? '' : ` of custom_llm_provider "${provider}"`;
      throw badRequest(`${ask}. None of the aliases this key may use${among} is served by a provider that stores ${what}s through this gateway.`, 'model');
    }
    const choices = all.map((account) => `${account.aliases.map((alias) => `"${alias}"`).join(', ')} (${account.provider})`).join('; ');
    throw badRequest(`${ask}. The aliases this key may use reach ${all.length} accounts that could hold it: ${choices}.`, 'model');
  }

  /** The alias's deployments that are not cooling down, each once. */
  private deploymentsOf(alias: string): GatewayDeployment[] {
    const found = new Map<string, GatewayDeployment>();
    for (let tries = this.deployments.size(alias); tries > 0; tries -= 1) {
      const deployment = this.deployments.pick(alias, new Set(found.keys()));
      if (!deployment || found.has(deployment.id)) break;
      found.set(deployment.id, deployment);
    }
    return [...found.values()];
  }

  /** Sends the request; answers of any status are returned unread. */
  async send(deployment: GatewayDeployment, request: ResourceRequest): Promise<UpstreamResponse> {
    const target = providerAdapterFor(deployment.provider)?.resources?.(deployment, request.path);
    if (!target) throw badRequest(`${deployment.provider} offers no stored resources through this gateway.`, 'model');
    const url = new URL(target.url);
    for (const [name, value] of request.query ?? []) url.searchParams.append(name, value);
    const headers: Record<string, string> = { ...target.headers, ...request.headers };
    let body: Buffer | Readable | undefined = request.body;
    if (request.json) {
      headers['content-type'] = 'application/json';
      body = Buffer.from(JSON.stringify(request.json));
    }
    return sendUpstream({
      url,
      method: request.method,
      headers,
      ...(body ? { body } : {}),
      signal: request.signal ?? new AbortController().signal,
      timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    });
  }

  /** Sends the request and reads its JSON answer; an error answer is thrown as the provider's error. */
  async json(deployment: GatewayDeployment, request: ResourceRequest): Promise<Record<string, unknown>> {
    const answer = await this.send(deployment, request);
    if (answer.statusCode < 200 || answer.statusCode >= 300) throw await openAiErrorFrom(answer);
    const bytes = await readAll(answer.body, MAX_JSON_ANSWER_BYTES);
    try {
      return JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new ProviderError(502, 'api_error', 'The upstream answered with something other than JSON.', 'upstream_invalid_answer');
    }
  }
}

/** One upstream account: what it stores, every deployment with the same provider, address and key sees. */
function accountOf(deployment: GatewayDeployment): string {
  return JSON.stringify([deployment.provider, deployment.apiBase ?? '', deployment.apiKey ?? '', deployment.apiVersion ?? '', deployment.params ?? {}]);
}

/** The named alias of a request that has no `model`: the x-arbor-model header. */
export function namedAlias(request: IncomingMessage): string | undefined {
  const value = request.headers[ALIAS_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An upstream error answer (any status) as the ProviderError OpenAI-format clients get. */
export async function upstreamFailure(answer: UpstreamResponse): Promise<ProviderError> {
  return openAiErrorFrom(answer);
}
