import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { readAll } from '@arbor/provider-adapters';
import { CallAccounting } from '../calls/call-accounting';
import { readJsonObject, hasBody } from '../calls/request-body';
import { NO_USAGE } from '../calls/usage';
import type { GatewayDeployment } from '../config/gateway-config';
import { sendError } from '../endpoints/endpoint-codec';
import { OPENAI_CHAT } from '../endpoints/openai/openai-codecs';
import { badRequest, keyModelAccessDenied } from '../gateway-errors';
import { GatewayAuthentication } from '../gateway-key.guard';
import { type GatewayCaller, mayUseAlias } from '../keys/key-verifier';
import { notServed } from './files.routes';
import type { OwnedResource, ResourceKind } from './owned-resource.entity';
import { ResourceStore } from './resource-store';
import { abortOnClose, pathId, queryOf, relay, sendJson } from './resource-replies';
import { namedAlias, ResourceUpstream, upstreamFailure } from './resource-upstream';

const PATH = /^\/v1\/(vector_stores|assistants|threads)(?:\/([^/]+)(\/.*)?)?$/;
const KINDS: Record<string, ResourceKind> = { vector_stores: 'vector_store', assistants: 'assistant', threads: 'thread' };
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** LiteLLM's body field naming the provider of a new resource that names no alias; not passed on. */
const PROVIDER_FIELD = 'custom_llm_provider';

function providerNamed(body: Record<string, unknown>): string | undefined {
  const provider = body[PROVIDER_FIELD];
  if (provider === undefined || provider === null) return undefined;
  if (typeof provider !== 'string' || provider === '') throw badRequest(`${PROVIDER_FIELD} must be a provider name such as "openai" or "azure".`, PROVIDER_FIELD);
  return provider;
}

/**
 * OpenAI's vector stores and Assistants API (assistants, threads, messages, runs, run steps),
 * each store, assistant and thread owned by the key's project and kept on the deployment that
 * created it: ids are the upstream's, and a request naming one (in the path, or as
 * `assistant_id` / `vector_store_ids` in its body) must own it. File ids in bodies are the
 * gateway's, translated both ways. Run events stream through as they arrive.
 */
@Injectable()
export class HostedResourcesRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly store: ResourceStore,
    private readonly upstream: ResourceUpstream,
    private readonly accounting: CallAccounting,
  ) {}

  onModuleInit(): void {
    this.routes.add({
      route: '/v1/{vector_stores|assistants|threads}',
      // Below an object: its own sub-resources (a store's files, a thread's messages and runs…).
      endpoints: Object.keys(KINDS).flatMap((collection) => [`/v1/${collection}`, `/v1/${collection}/{id}/{rest*}`].map((path) => ({ methods: ['GET', 'POST', 'DELETE'], path }))),
      matches: (method, path) => PATH.test(path) && ['GET', 'POST', 'DELETE'].includes(method),
      handle: (request, response, path) => this.answer(request, response, path),
    });
  }

  private async answer(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    try {
      const caller = await this.authentication.caller(request);
      const [, collection = '', rawId, rest = ''] = PATH.exec(path) ?? [];
      const kind = KINDS[collection] as ResourceKind;
      const method = request.method as 'GET' | 'POST' | 'DELETE';
      const query = queryOf(request.url);
      if (rawId === undefined) {
        if (method === 'GET') return sendJson(response, await this.store.list(kind, caller, query));
        if (method === 'POST') return await this.create(kind, caller, request, response);
        throw notServed(method, path);
      }
      // POST /v1/threads/runs: a new thread and its run, on the assistant's deployment.
      if (kind === 'thread' && rawId === 'runs' && rest === '' && method === 'POST') return await this.create(kind, caller, request, response, true);
      const owned = await this.owned(kind, pathId(rawId, `${kind}_id`), caller);
      const deployment = this.upstream.deployment(owned.deploymentId);
      const body = method === 'POST' && hasBody(request) ? await this.upstreamBody(await readJsonObject(request, 'checked'), caller, deployment) : undefined;
      const run = method === 'POST' && /^\/runs(\/[^/]+\/submit_tool_outputs)?$/.test(rest);
      const admission = run ? await this.accounting.admit(caller, owned.alias) : undefined;
      try {
        const upstreamPath = `/${collection}/${encodeURIComponent(owned.upstreamId)}${await this.upstreamRest(rest, caller, deployment)}`;
        const answer = await this.upstream.send(deployment, { method, path: upstreamPath, query, ...(body ? { json: body } : {}), signal: abortOnClose(response) });
        if (answer.statusCode < 200 || answer.statusCode >= 300) throw await upstreamFailure(answer);
        if (String(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) return await relay(response, answer);
        const object = await this.clientObject(JSON.parse((await readAll(answer.body, MAX_ANSWER_BYTES)).toString('utf8')) as Record<string, unknown>, owned, deployment);
        if (rest === '' && method === 'DELETE') await this.store.remove(owned.id);
        else if (rest === '') await this.store.setObject(owned.id, object);
        sendJson(response, object);
      } finally {
        admission?.settle({ alias: owned.alias, deployment: undefined, usage: NO_USAGE, cost: 0 });
      }
    } catch (error) {
      sendError(OPENAI_CHAT, response, error);
    }
  }

  /** A vector store's `/files/{file_id}…` names the gateway's file id; the upstream knows its own. */
  private async upstreamRest(rest: string, caller: GatewayCaller, deployment: GatewayDeployment): Promise<string> {
    const file = /^\/files\/([^/]+)(.*)$/.exec(rest);
    if (!file) return rest;
    const owned = await this.owned('file', pathId(file[1] as string, 'file_id'), caller);
    if (owned.deploymentId !== deployment.id) throw badRequest(`The file ${owned.id} lives on another deployment than this request.`, 'file_id');
    return `/files/${encodeURIComponent(owned.upstreamId)}${file[2] ?? ''}`;
  }

  private async owned(kind: ResourceKind, id: string, caller: GatewayCaller): Promise<OwnedResource> {
    const owned = await this.store.find(kind, id, caller);
    if (!mayUseAlias(caller, owned.alias)) throw keyModelAccessDenied(owned.alias);
    return owned;
  }

  /**
   * A new store, assistant or thread: an assistant on its `model` alias, a thread with a run on
   * its assistant's deployment, the others on the alias of the x-arbor-model header (or the key's
   * default, of the body's custom_llm_provider when it names one).
   */
  private async create(kind: ResourceKind, caller: GatewayCaller, request: IncomingMessage, response: ServerResponse, withRun = false): Promise<void> {
    const body = await readJsonObject(request, 'checked');
    let deployment: GatewayDeployment;
    const assistantId = body['assistant_id'];
    if (withRun) {
      if (typeof assistantId !== 'string') throw badRequest('assistant_id is required.', 'assistant_id');
      if (body['stream'] === true) throw badRequest('Create the thread first, then stream its run: a streamed create-and-run is not served.', 'stream');
      deployment = this.upstream.deployment((await this.owned('assistant', assistantId, caller)).deploymentId);
    } else {
      const model = kind === 'assistant' ? body['model'] : undefined;
      if (kind === 'assistant' && (typeof model !== 'string' || model === '')) throw badRequest('model is required.', 'model');
      deployment = this.upstream.deploymentFor(caller, typeof model === 'string' ? model : namedAlias(request), kind, providerNamed(body));
    }
    delete body[PROVIDER_FIELD];
    const admission = withRun ? await this.accounting.admit(caller, deployment.alias) : undefined;
    try {
      const upstreamPath = withRun ? '/threads/runs' : `/${Object.keys(KINDS).find((key) => KINDS[key] === kind)}`;
      const answer = await this.upstream.json(deployment, { method: 'POST', path: upstreamPath, json: await this.upstreamBody(body, caller, deployment) });
      const upstreamId = String(withRun ? answer['thread_id'] : answer['id']);
      // A thread made with its run is listed as a thread.
      const listed = withRun ? { id: upstreamId, object: 'thread', created_at: answer['created_at'], metadata: {}, tool_resources: {} } : answer;
      const owner = { id: upstreamId, kind, alias: deployment.alias, deploymentId: deployment.id, upstreamId, object: listed };
      await this.store.add(caller, owner);
      const object = await this.clientObject(
        answer,
        { ...owner, project: caller.kind === 'master' ? null : caller.key.project, keyId: caller.kind === 'master' ? null : caller.key.id } as OwnedResource,
        deployment,
      );
      if (!withRun) await this.store.setObject(upstreamId, object);
      sendJson(response, object);
    } finally {
      admission?.settle({ alias: deployment.alias, deployment: undefined, usage: NO_USAGE, cost: 0 });
    }
  }

  /**
   * The body as the upstream takes it: the alias in `model` as the deployment's model, gateway
   * file ids as the upstream's, and every assistant and vector store it names owned by the caller
   * on the same deployment.
   */
  private async upstreamBody(body: Record<string, unknown>, caller: GatewayCaller, deployment: GatewayDeployment): Promise<Record<string, unknown>> {
    const model = body['model'];
    if (typeof model === 'string') {
      if (model !== deployment.alias) throw badRequest(`model must be "${deployment.alias}", the alias this resource lives on.`, 'model');
      body = { ...body, model: deployment.model };
    }
    const refs = collectRefs(body);
    const onDeployment = async (kind: ResourceKind, id: string): Promise<OwnedResource> => {
      const found = await this.owned(kind, id, caller);
      if (found.deploymentId !== deployment.id) throw badRequest(`The ${kind.replace('_', ' ')} ${id} lives on another deployment than this request.`, `${kind}_id`);
      return found;
    };
    for (const id of refs.assistants) await onDeployment('assistant', id);
    for (const id of refs.vectorStores) await onDeployment('vector_store', id);
    const files = new Map<string, string>();
    for (const id of refs.files) files.set(id, (await onDeployment('file', id)).upstreamId);
    return files.size === 0 ? body : (rewriteFileIds(body, (id) => files.get(id)) as Record<string, unknown>);
  }

  /** The answer as the client sees it: upstream file ids as the gateway's, the deployment's model as the alias. */
  private async clientObject(object: Record<string, unknown>, owner: OwnedResource, deployment: GatewayDeployment): Promise<Record<string, unknown>> {
    const upstreamFiles = collectRefs(object, true).files;
    const known = await this.store.clientFileIds(owner, upstreamFiles);
    const rewritten = rewriteFileIds(object, (id) => known.get(id)) as Record<string, unknown>;
    return modelAsAlias(rewritten, deployment) as Record<string, unknown>;
  }
}

interface Refs {
  files: string[];
  assistants: string[];
  vectorStores: string[];
}

const FILE_FIELDS = new Set(['file_id', 'file_ids', 'input_file_id', 'output_file_id', 'error_file_id']);

/** File ids (and, in requests, assistant and vector store ids) a body names, wherever they are nested. */
function collectRefs(value: unknown, answer = false, refs: Refs = { files: [], assistants: [], vectorStores: [] }): Refs {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, answer, refs);
    return refs;
  }
  if (typeof value !== 'object' || value === null) return refs;
  const record = value as Record<string, unknown>;
  for (const [field, item] of Object.entries(record)) {
    if (FILE_FIELDS.has(field) || (answer && field === 'id' && isStoreFile(record))) refs.files.push(...strings(item));
    else if (!answer && field === 'assistant_id') refs.assistants.push(...strings(item));
    else if (!answer && field === 'vector_store_ids') refs.vectorStores.push(...strings(item));
    else collectRefs(item, answer, refs);
  }
  return refs;
}

/** A vector store's file (or its deletion), whose `id` is the file's. */
function isStoreFile(record: Record<string, unknown>): boolean {
  return record['object'] === 'vector_store.file' || record['object'] === 'vector_store.file.deleted';
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function rewriteFileIds(value: unknown, map: (id: string) => string | undefined, inFileField = false): unknown {
  if (typeof value === 'string') return inFileField ? (map(value) ?? value) : value;
  if (Array.isArray(value)) return value.map((item) => rewriteFileIds(item, map, inFileField));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(record)) {
    const fileField = FILE_FIELDS.has(field) || (field === 'id' && isStoreFile(record));
    out[field] = rewriteFileIds(item, map, fileField);
  }
  return out;
}

/** `model` fields naming the deployment's model name the alias instead, as the client asked. */
function modelAsAlias(value: unknown, deployment: GatewayDeployment): unknown {
  if (Array.isArray(value)) return value.map((item) => modelAsAlias(item, deployment));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(value as Record<string, unknown>)) {
    out[field] = field === 'model' && item === deployment.model ? deployment.alias : modelAsAlias(item, deployment);
  }
  return out;
}
