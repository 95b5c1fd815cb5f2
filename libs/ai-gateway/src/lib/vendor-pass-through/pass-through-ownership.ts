import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { Inject, Injectable } from '@nestjs/common';
import { excerpt, nestingProblem, readRequestBody } from '@arbor/platform';
import { ProviderError, readAll, type PassThroughApi, type ResourceCollection, type UpstreamResponse } from '@arbor/provider-adapters';
import type { PassThroughAllowedPath } from '../config/litellm-settings';
import { badRequest, requestTooLarge, unsupportedEncoding } from '../gateway-errors';
import { MAX_REQUEST_BYTES, hasBody } from '../calls/request-body';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { GatewayCaller } from '../keys/key-verifier';
import type { PassThroughKind } from '../resources/owned-resource.entity';
import { kindsOf, ObjectReferences } from '../resources/object-references';
import { ResourceStore } from '../resources/resource-store';

// A list, or an answer naming a new object, is read whole to find its ids; past this it is passed on unread.
const MAX_READ_ANSWER_BYTES = 64 * 1024 * 1024;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The request as the vendor's resource table sees it. */
export interface PassThroughRequest {
  method: string;
  /** Below the vendor's root, as the client sent it (`/v1/files/file-abc/content`). */
  path: string;
  /** A call of a model endpoint the gateway meters (chat completions, responses, messages…). */
  modelCall: boolean;
}

/** What the guard let through, and what it does with a 2xx answer. */
export interface OwnershipPlan {
  /** The JSON body, read whole to check the objects it names: sent upstream as these bytes. */
  body?: Buffer;
  /** A list answer filtered to the caller's objects: its length changes. */
  rewritesAnswer: boolean;
  /**
   * The answer's bytes as the client gets them, the ids it names recorded before it ends; a list
   * left short by the filter is filled from the upstream's next pages (`nextPage`, the same
   * request with another query).
   */
  answer(statusCode: number, body: AsyncIterable<Buffer>, nextPage: (search: string) => Promise<UpstreamResponse>): AsyncIterable<Buffer>;
}

/** The upstream pages a short list is filled from, at most: a project with few objects among many others' gets shorter pages past this. */
const MAX_LIST_PAGES = 10;

interface AnswerRule {
  /** The list of a collection: only the caller's objects are left in `data`. */
  list?: ResourceCollection;
  /** A new object, named in the answer at one of `idAt`. */
  made?: { kind: string; idAt: readonly string[] };
  /** Fields of the answer (or of each listed object) naming other objects of the same owner. */
  names?: Readonly<Record<string, string>>;
  /** An object deleted: its records go. */
  deleted?: { collection: ResourceCollection; id: string };
}

const PASSED_ON: OwnershipPlan = { rewritesAnswer: false, answer: (_status, body) => body };

/**
 * Keeps each project to its own objects on the vendor pass-throughs, from the vendor's resource
 * table (PassThroughResources): objects a request makes are recorded as the caller's project's
 * (owned_resources, beside those the gateway's own /v1 routes made), lists answer only the
 * project's, a path or body naming another project's object is the vendor's 404, and a path the
 * table does not describe and that is no model call is refused (403) but for the master key and
 * general_settings.pass_through_allowed_paths. The master key sees everything. Model calls read
 * the database only when their body names an object (`previous_response_id`, a `file_id`).
 */
@Injectable()
export class PassThroughOwnership {
  constructor(
    private readonly store: ResourceStore,
    private readonly references: ObjectReferences,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /** Throws the vendor's 404 or the gateway's 403 for a request the caller may not make; reads a JSON body it must check. */
  async check(caller: GatewayCaller, api: PassThroughApi, request: IncomingMessage, asked: PassThroughRequest, deployment: { id: string; alias: string }): Promise<OwnershipPlan> {
    const { method, path } = asked;
    const table = api.resources;
    const master = caller.kind === 'master';
    const segments = segmentsOf(path);
    if (!segments) return this.unattributed(caller, api, method, path);
    const creation = table.creations.find((candidate) => candidate.method === method && matches(candidate.path, segments));
    const shared = table.shared.some((candidate) => candidate.method === method && matches(candidate.path, segments));
    const collection = collectionOf(api, segments);
    const rule: AnswerRule = {};
    if (creation) rule.made = { kind: creation.kind, idAt: creation.idAt };

    if (!shared && !asked.modelCall && !(creation && !creation.path.includes('{}'))) {
      if (!collection) return this.unattributed(caller, api, method, path);
      const depth = collection.path.split('/').length - 1;
      if (segments.length === depth) {
        if (method === 'GET') rule.list = collection;
        if (method === 'POST' && collection.creates !== false) rule.made = { kind: collection.kind, idAt: ['id'] };
      } else {
        const id = segments[depth] as string;
        if (!master) await this.references.mustOwn(caller, api, collection, [id]);
        if (method === 'DELETE' && segments.length === depth + 1) rule.deleted = { collection, id };
      }
      if (collection.names) rule.names = collection.names;
    }

    // A form is an upload only where the vendor takes one; anywhere else the body is read as the JSON it must be.
    const upload = isMultipart(request) && table.multipart.some((candidate) => matches(candidate, segments));
    const body = !master && BODY_METHODS.has(method) && !upload && hasBody(request) ? await readJson(request) : undefined;
    if (body) await this.references.checkPassThroughBody(caller, api, body.json);
    const plan = this.plan(caller, api, deployment, rule, new URL(request.url ?? '/', 'http://gateway').searchParams);
    return body ? { ...plan, body: body.bytes } : plan;
  }

  private unattributed(caller: GatewayCaller, api: PassThroughApi, method: string, path: string): OwnershipPlan {
    if (caller.kind === 'master' || allowed(this.settings.litellm.passThroughAllowedPaths, method, [api.route, ...path.split('/').slice(1)])) return PASSED_ON;
    throw new ProviderError(
      403,
      'permission_error',
      `${method} /${api.route}${excerpt(path)} holds no object the gateway can attribute to a project: only the master key may call it, or an entry of general_settings.pass_through_allowed_paths.`,
      'pass_through_path_not_allowed',
    );
  }

  private plan(caller: GatewayCaller, api: PassThroughApi, deployment: { id: string; alias: string }, rule: AnswerRule, query: URLSearchParams): OwnershipPlan {
    if (!rule.list && !rule.made && !rule.names && !rule.deleted) return PASSED_ON;
    const filters = rule.list !== undefined && caller.kind !== 'master';
    const record = (kind: string, ids: readonly string[]) => this.store.addUpstream(caller, `${api.route}.${kind}` as PassThroughKind, deployment, ids);
    const recordNames = async (object: unknown) => {
      if (!rule.names || typeof object !== 'object' || object === null) return;
      for (const [field, kind] of Object.entries(rule.names)) {
        const value = (object as Record<string, unknown>)[field];
        if (typeof value === 'string' && value !== '') await record(kind, [value]);
      }
    };
    const store = this.store;
    const { after, before } = api.resources.cursors;
    const published = rule.list?.published;
    const pageToken = rule.list?.pageToken;
    const ownedOf = async (items: unknown[]): Promise<unknown[]> => {
      const ids = items.map((item) => (typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === 'string');
      const owned = await store.ownedUpstreamIds(caller, kindsOf(api, rule.list as ResourceCollection), ids, rule.list?.nativeKind === 'response');
      return items.filter((item) => {
        const id = (item as { id?: unknown }).id as string;
        return owned.has(id) || (typeof id === 'string' && published?.test(id) === true);
      });
    };
    const answer = async function* (statusCode: number, body: AsyncIterable<Buffer>, nextPage: (search: string) => Promise<UpstreamResponse>): AsyncIterable<Buffer> {
      if (statusCode < 200 || statusCode >= 300) return yield* body;
      if (rule.deleted) {
        yield* body;
        return store.removeUpstream(kindsOf(api, rule.deleted.collection), rule.deleted.id);
      }
      const reader = new AnswerReader(rule.made?.idAt);
      if (filters) {
        for await (const chunk of body) reader.push(chunk);
        const list = reader.document() as { data?: unknown } | undefined;
        // Nothing of it can be shown unread.
        if (!list || !Array.isArray(list.data)) return yield Buffer.from(JSON.stringify({ object: 'list', data: [], first_id: null, last_id: null, has_more: false }));
        // As many as the upstream's page held, from its next pages while the filter leaves it short (paging forward only).
        const wanted = list.data.length;
        let page = list as { data: unknown[]; has_more?: unknown } & Record<string, unknown>;
        const kept = await ownedOf(page.data);
        const more = () => (pageToken ? typeof page[pageToken.from] === 'string' && page[pageToken.from] !== '' : page.has_more === true);
        for (let pages = 1; kept.length < wanted && more() && !query.has(before) && pages < MAX_LIST_PAGES; pages++) {
          const next = new URLSearchParams(query);
          if (pageToken) next.set(pageToken.query, page[pageToken.from] as string);
          else {
            const last = (page.data.at(-1) as { id?: unknown } | undefined)?.id;
            if (typeof last !== 'string') break;
            next.set(after, last);
          }
          const answer = await nextPage(`?${next.toString()}`);
          const text = (await readAll(answer.body, MAX_READ_ANSWER_BYTES)).toString('utf8');
          const following = answer.statusCode >= 200 && answer.statusCode < 300 ? (parsed(text) as typeof page | undefined) : undefined;
          if (!following || !Array.isArray(following.data)) break;
          page = following;
          kept.push(...(await ownedOf(following.data)));
        }
        // A token names the page after the last one read: what that page held past `wanted` goes out now rather than be skipped.
        const data = pageToken ? kept : kept.slice(0, wanted);
        for (const item of data) await recordNames(item);
        const filtered: Record<string, unknown> = { ...list, data, has_more: kept.length > data.length || more() };
        if (pageToken) filtered[pageToken.from] = more() ? page[pageToken.from] : null;
        if ('first_id' in filtered) filtered['first_id'] = (data[0] as { id?: unknown } | undefined)?.id ?? null;
        if ('last_id' in filtered) filtered['last_id'] = (data.at(-1) as { id?: unknown } | undefined)?.id ?? null;
        return yield Buffer.from(JSON.stringify(filtered));
      }
      // The answer goes on as it arrives; what it names is recorded before it ends, so that the client's next request finds it.
      for await (const chunk of body) {
        reader.push(chunk);
        yield chunk;
      }
      if (rule.made) {
        const id = reader.madeId();
        if (id !== undefined) await record(rule.made.kind, [id]);
      }
      const document = reader.document() as { data?: unknown } | undefined;
      if (rule.list && Array.isArray(document?.data)) for (const item of document.data) await recordNames(item);
      else await recordNames(document);
    };
    return { rewritesAnswer: filters, answer };
  }
}

/** The longest collection whose path starts `segments`. */
function collectionOf(api: PassThroughApi, segments: readonly string[]): ResourceCollection | undefined {
  let found: ResourceCollection | undefined;
  let foundDepth = 0;
  for (const collection of api.resources.collections) {
    const own = collection.path.split('/').slice(1);
    if (own.length > foundDepth && own.length <= segments.length && own.every((segment, index) => segment === segments[index])) {
      found = collection;
      foundDepth = own.length;
    }
  }
  return found;
}

/**
 * The path's segments decoded; undefined when one is ambiguous (empty, `.`, `..`, holding a slash
 * or backslash, or not valid percent-encoding): such a path is attributed to no object, so refused.
 */
export function segmentsOf(path: string): string[] | undefined {
  if (!path.startsWith('/')) return undefined;
  const segments: string[] = [];
  for (const raw of path.split('/').slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '' || segment === '.' || segment === '..' || /[/\\]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

/** Whether a table path (`{}` one segment) names exactly these segments. */
function matches(pattern: string, segments: readonly string[]): boolean {
  const own = pattern.split('/').slice(1);
  return own.length === segments.length && own.every((segment, index) => segment === '{}' || segment === segments[index]);
}

/** Whether a configured allow-list entry opens `method` on these raw segments (from the gateway's root). */
function allowed(entries: readonly PassThroughAllowedPath[], method: string, segments: readonly string[]): boolean {
  const decoded = segmentsOf(`/${segments.join('/')}`);
  if (!decoded) return false;
  return entries.some((entry) => {
    if (entry.methods && !entry.methods.has(method)) return false;
    const rest = entry.segments.at(-1) === '**';
    const own = rest ? entry.segments.slice(0, -1) : entry.segments;
    if (rest ? decoded.length <= own.length : decoded.length !== own.length) return false;
    return own.every((segment, index) => segment === '*' || segment === decoded[index]);
  });
}

function isMultipart(request: IncomingMessage): boolean {
  return /^multipart\//i.test(request.headers['content-type'] ?? '');
}

/** The body read whole, with the JSON it holds (a body that is no JSON is refused: the objects it names cannot be checked). */
async function readJson(request: IncomingMessage): Promise<{ bytes: Buffer; json: unknown }> {
  const body = await readRequestBody(request, MAX_REQUEST_BYTES);
  if (!('bytes' in body)) throw body.refused === 'unsupported_encoding' ? unsupportedEncoding(body.encoding) : requestTooLarge(MAX_REQUEST_BYTES);
  if (body.bytes.length === 0) return { bytes: body.bytes, json: undefined };
  let json: unknown;
  try {
    json = JSON.parse(body.bytes.toString('utf8'));
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${excerpt(error instanceof Error ? error.message : String(error))}`);
  }
  const tooDeep = nestingProblem(json, 'body');
  if (tooDeep) throw badRequest(`Invalid ${tooDeep.field}: it ${tooDeep.problem}.`);
  return { bytes: body.bytes, json };
}

/**
 * An answer's bytes as they go by: a JSON document kept whole (up to a bound) to be read at its
 * end, a stream's events read as they come until one names the new object's id.
 */
export class AnswerReader {
  private readonly decoder = new StringDecoder('utf8');
  private text = '';
  private size = 0;
  private streamed: boolean | undefined;
  private foundId: string | undefined;

  constructor(private readonly idAt: readonly string[] | undefined) {}

  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > MAX_READ_ANSWER_BYTES) {
      this.text = '';
      return;
    }
    if (this.streamed && this.foundId !== undefined) return;
    this.text += this.decoder.write(chunk);
    // A JSON document starts with its object or array; anything else is an event stream.
    const first = this.streamed === undefined ? /\S/.exec(this.text)?.[0] : undefined;
    if (first !== undefined) this.streamed = first !== '{' && first !== '[';
    if (!this.streamed) return;
    // Whole events only; the rest waits for the next chunk.
    const events = this.text.split(/\r?\n\r?\n/);
    this.text = events.pop() ?? '';
    for (const event of events) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      const id = this.idIn(parsed(data));
      if (id !== undefined) {
        this.foundId = id;
        this.text = '';
        return;
      }
    }
  }

  /** The JSON answer, read whole; undefined for a stream, past the bound, or no JSON. */
  document(): unknown {
    return this.streamed || this.size > MAX_READ_ANSWER_BYTES ? undefined : parsed(this.text + this.decoder.end());
  }

  madeId(): string | undefined {
    return this.foundId ?? this.idIn(this.document());
  }

  private idIn(value: unknown): string | undefined {
    for (const at of this.idAt ?? []) {
      let here: unknown = value;
      for (const field of at.split('.')) here = typeof here === 'object' && here !== null ? (here as Record<string, unknown>)[field] : undefined;
      if (typeof here === 'string' && here !== '') return here;
    }
    return undefined;
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
