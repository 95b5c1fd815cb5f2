// Several URLs behind one stdio server: catalogues are merged (exposed-names.ts), each request is
// routed to the upstream that owns its tool, prompt or resource, and request ids are renumbered per
// upstream so that cancellations and server→client requests (sampling, elicitation, roots) find
// their way back. Lists are answered in one page built from every upstream's pages.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  ErrorCode,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { describeUrl, messageOf, openUpstream } from '../upstream/open-upstream.ts';
import { errorResponse, type Bridge, type BridgeEvents } from './bridge.ts';
import { exposeNames, labelUrls, prefixName, prefixUri, URI_PREFIX, type Exposed } from './exposed-names.ts';

type Params = Record<string, unknown>;
type Item = Record<string, unknown>;

interface Upstream {
  index: number;
  url: URL;
  transport: Transport;
  capabilities: Params;
  nextId: number;
  /** Requests sent to this upstream, by the id it sees, waiting for its answer. */
  waiting: Map<RequestId, (response: JSONRPCResponse) => void>;
}

/** The four lists: their method, the capability that offers them, the field that names an item and how it is prefixed. */
const LISTS = {
  tools: { method: 'tools/list', capability: 'tools', field: 'name', prefix: prefixName },
  prompts: { method: 'prompts/list', capability: 'prompts', field: 'name', prefix: prefixName },
  resources: { method: 'resources/list', capability: 'resources', field: 'uri', prefix: prefixUri },
  resourceTemplates: { method: 'resources/templates/list', capability: 'resources', field: 'uriTemplate', prefix: prefixUri },
} as const;
type ListName = keyof typeof LISTS;

const LIST_CHANGED: Record<string, ListName[]> = {
  'notifications/tools/list_changed': ['tools'],
  'notifications/prompts/list_changed': ['prompts'],
  'notifications/resources/list_changed': ['resources', 'resourceTemplates'],
};

export class UpstreamFanOut implements Bridge {
  private readonly client: Transport;
  private readonly urls: readonly URL[];
  private readonly authorization: string | undefined;
  private readonly events: BridgeEvents;
  private readonly labels: string[];
  private upstreams: Upstream[] = [];
  private initializing = false;
  /** The stdio client's requests in flight, by its id: where they went, for notifications/cancelled. */
  private readonly forwarded = new Map<RequestId, { upstream: Upstream; id: RequestId }>();
  /** Server→client requests, by the id the stdio client sees. */
  private readonly fromUpstreams = new Map<RequestId, { upstream: Upstream; id: RequestId }>();
  private nextClientId = 1;
  private readonly catalogue = new Map<ListName, Promise<Exposed<Item>[]>>();
  /** `<upstream index> <uri>` → the URI the client was shown, for notifications/resources/updated. */
  private readonly exposedUris = new Map<string, string>();

  constructor(client: Transport, urls: readonly URL[], authorization: string | undefined, events: BridgeEvents) {
    this.client = client;
    this.urls = urls;
    this.authorization = authorization;
    this.events = events;
    this.labels = labelUrls(urls);
    client.onmessage = (message) => this.fromClient(message);
  }

  async close(): Promise<void> {
    const open = this.upstreams;
    this.upstreams = [];
    await Promise.all(
      open.map(async ({ transport }) => {
        transport.onclose = undefined;
        if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
        await transport.close();
      }),
    );
  }

  private fromClient(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) {
      this.answerRequest(message).then(
        (response) => this.toClient(response),
        (error: unknown) => this.toClient(errorResponse(message.id, messageOf(error))),
      );
    } else if (isJSONRPCNotification(message)) {
      this.relayNotification(message);
    } else if (message.id !== undefined) {
      // The stdio client answering a request that one of the upstreams made.
      const origin = this.fromUpstreams.get(message.id);
      if (!origin) return;
      this.fromUpstreams.delete(message.id);
      this.send(origin.upstream, { ...message, id: origin.id });
    }
  }

  private async answerRequest(request: JSONRPCRequest): Promise<JSONRPCMessage> {
    if (isInitializeRequest(request)) return this.initialize(request);
    if (request.method === 'ping') return result(request.id, {});
    if (this.upstreams.length === 0) return errorResponse(request.id, 'not connected to any upstream: send initialize first');
    const params: Params = request.params ?? {};
    const listName = (Object.keys(LISTS) as ListName[]).find((name) => LISTS[name].method === request.method);
    if (listName) {
      if (params['cursor'] !== undefined) return errorResponse(request.id, 'unknown cursor: merged lists come in one page', ErrorCode.InvalidParams);
      this.catalogue.delete(listName);
      const items = await this.list(listName);
      return result(request.id, { [listName]: items.map(({ exposed, item }) => ({ ...item, [LISTS[listName].field]: exposed })) });
    }
    switch (request.method) {
      case 'logging/setLevel':
        await Promise.all(this.upstreams.filter((u) => u.capabilities['logging']).map((u) => this.call(u, request.method, params)));
        return result(request.id, {});
      case 'tools/call':
        return this.forwardNamed(request, 'tools', String(params['name']));
      case 'prompts/get':
        return this.forwardNamed(request, 'prompts', String(params['name']));
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.forwardResource(request, String(params['uri']));
      case 'completion/complete':
        return this.forwardCompletion(request, params);
      default:
        return this.forward(this.upstreams[0], request);
    }
  }

  private async initialize(request: JSONRPCRequest): Promise<JSONRPCMessage> {
    if (this.initializing || this.upstreams.length) return errorResponse(request.id, 'initialize was already sent', ErrorCode.InvalidRequest);
    this.initializing = true;
    const opened = await Promise.allSettled(this.urls.map((url) => openUpstream(url, this.authorization, request)));
    this.initializing = false;
    const answers: Params[] = [];
    const failures: string[] = [];
    opened.forEach((outcome, index) => {
      if (outcome.status === 'rejected') return failures.push(messageOf(outcome.reason));
      const { transport, initializeResponse, earlier } = outcome.value;
      if (!isJSONRPCResultResponse(initializeResponse)) {
        transport.close().catch(() => undefined);
        return failures.push(`${describeUrl(this.urls[index])}: ${isJSONRPCErrorResponse(initializeResponse) ? initializeResponse.error.message : 'no answer'}`);
      }
      const upstream: Upstream = {
        index,
        url: this.urls[index],
        transport,
        capabilities: (initializeResponse.result['capabilities'] as Params) ?? {},
        nextId: 1,
        waiting: new Map(),
      };
      transport.onmessage = (message) => this.fromUpstream(upstream, message);
      transport.onerror = (error) => this.events.log(`${describeUrl(upstream.url)}: ${error.message}`);
      transport.onclose = () => this.lost(upstream);
      this.upstreams.push(upstream);
      answers.push(initializeResponse.result);
      earlier.forEach((message) => this.fromUpstream(upstream, message));
    });
    failures.forEach((failure) => this.events.log(`left out: ${failure}`));
    if (answers.length === 0) return errorResponse(request.id, `no upstream could be reached: ${failures.join('; ')}`);
    // The oldest version any upstream agreed to: the client must not use features one of them lacks.
    const protocolVersion = answers.map((answer) => String(answer['protocolVersion'])).sort()[0];
    const instructions = answers
      .map((answer, i) => (answer['instructions'] ? `${this.labels[this.upstreams[i].index]}: ${String(answer['instructions'])}` : ''))
      .filter(Boolean)
      .join('\n\n');
    return result(request.id, {
      protocolVersion,
      capabilities: mergeCapabilities(answers.map((answer) => (answer['capabilities'] ?? {}) as Params)),
      serverInfo: { name: 'arbor-mcp-wrapper', version: '1.0.0' },
      ...(instructions ? { instructions } : {}),
    });
  }

  private list(name: ListName): Promise<Exposed<Item>[]> {
    let listing = this.catalogue.get(name);
    if (!listing) {
      listing = this.collect(name);
      this.catalogue.set(name, listing);
      listing.catch(() => this.catalogue.delete(name));
    }
    return listing;
  }

  private async collect(name: ListName): Promise<Exposed<Item>[]> {
    const spec = LISTS[name];
    const perUpstream = new Map<number, Item[]>();
    await Promise.all(
      this.upstreams
        .filter((u) => u.capabilities[spec.capability])
        .map(async (upstream) => {
          const items: Item[] = [];
          let cursor: unknown;
          try {
            do {
              const page = await this.call(upstream, spec.method, cursor === undefined ? {} : { cursor });
              items.push(...((page[name] as Item[]) ?? []));
              cursor = page['nextCursor'];
            } while (cursor !== undefined && cursor !== null);
            perUpstream.set(upstream.index, items);
          } catch (error) {
            // One upstream failing leaves the others' catalogue usable.
            this.events.log(`${describeUrl(upstream.url)}: ${spec.method} failed: ${messageOf(error)}`);
          }
        }),
    );
    const ordered = new Map([...perUpstream].sort(([a], [b]) => a - b));
    const exposed = exposeNames(ordered, (item) => String(item[spec.field]), spec.prefix, this.labels);
    if (name === 'resources') exposed.forEach((entry) => this.exposedUris.set(`${entry.upstream} ${entry.original}`, entry.exposed));
    return exposed;
  }

  private async forwardNamed(request: JSONRPCRequest, listName: 'tools' | 'prompts', name: string): Promise<JSONRPCMessage> {
    const entry = (await this.list(listName)).find((candidate) => candidate.exposed === name);
    if (!entry) return errorResponse(request.id, `unknown ${listName === 'tools' ? 'tool' : 'prompt'}: ${name}`, ErrorCode.InvalidParams);
    return this.forward(this.upstreamAt(entry.upstream), { ...request, params: { ...request.params, name: entry.original } });
  }

  private async forwardResource(request: JSONRPCRequest, uri: string): Promise<JSONRPCMessage> {
    const target = await this.resourceOwner(uri);
    const response = await this.forward(target.upstream, { ...request, params: { ...request.params, uri: target.uri } });
    if (target.uri === uri || !isJSONRPCResultResponse(response) || !Array.isArray(response.result['contents'])) return response;
    const contents = (response.result['contents'] as Item[]).map((content) => (content['uri'] === target.uri ? { ...content, uri } : content));
    return { ...response, result: { ...response.result, contents } };
  }

  /** A listed URI, else a prefixed one, else the first upstream whose template matches, else the first with resources. */
  private async resourceOwner(uri: string): Promise<{ upstream: Upstream; uri: string }> {
    const listed = (await this.list('resources')).find((entry) => entry.exposed === uri);
    if (listed) return { upstream: this.upstreamAt(listed.upstream), uri: listed.original };
    if (uri.startsWith(URI_PREFIX)) {
      const rest = uri.slice(URI_PREFIX.length);
      const label = rest.slice(0, rest.indexOf('/'));
      const upstream = this.upstreams.find((u) => this.labels[u.index] === label);
      if (upstream) return { upstream, uri: rest.slice(label.length + 1) };
    }
    const templates = await this.list('resourceTemplates');
    const matching = templates.find((entry) => new UriTemplate(entry.original).match(uri) !== null);
    if (matching) return { upstream: this.upstreamAt(matching.upstream), uri };
    return { upstream: this.upstreams.find((u) => u.capabilities['resources']) ?? this.upstreams[0], uri };
  }

  private async forwardCompletion(request: JSONRPCRequest, params: Params): Promise<JSONRPCMessage> {
    const ref = (params['ref'] ?? {}) as Params;
    if (ref['type'] === 'ref/prompt') {
      const prompt = (await this.list('prompts')).find((entry) => entry.exposed === ref['name']);
      if (!prompt) return errorResponse(request.id, `unknown prompt: ${String(ref['name'])}`, ErrorCode.InvalidParams);
      return this.forward(this.upstreamAt(prompt.upstream), { ...request, params: { ...params, ref: { ...ref, name: prompt.original } } });
    }
    const template = (await this.list('resourceTemplates')).find((entry) => entry.exposed === ref['uri']);
    const upstream = template ? this.upstreamAt(template.upstream) : (await this.resourceOwner(String(ref['uri']))).upstream;
    return this.forward(upstream, { ...request, params: { ...params, ref: { ...ref, uri: template?.original ?? ref['uri'] } } });
  }

  /** Sends the stdio client's request on and answers with the client's id; remembered for notifications/cancelled. */
  private async forward(upstream: Upstream, request: JSONRPCRequest): Promise<JSONRPCMessage> {
    const sent = this.exchange(upstream, request);
    this.forwarded.set(request.id, { upstream, id: sent.id });
    try {
      return { ...(await sent.response), id: request.id };
    } finally {
      this.forwarded.delete(request.id);
    }
  }

  /** A request of the wrapper's own (lists, setLevel): the result, or a thrown error. */
  private async call(upstream: Upstream, method: string, params: Params): Promise<Params> {
    const response = await this.exchange(upstream, { jsonrpc: '2.0', id: 0, method, params }).response;
    if (isJSONRPCResultResponse(response)) return response.result;
    throw new Error(isJSONRPCErrorResponse(response) ? response.error.message : 'no result');
  }

  /** Sends a request under the next id of this upstream's own numbering. */
  private exchange(upstream: Upstream, request: JSONRPCRequest): { id: RequestId; response: Promise<JSONRPCResponse> } {
    const id = upstream.nextId++;
    const response = new Promise<JSONRPCResponse>((resolve) => upstream.waiting.set(id, resolve));
    this.send(upstream, { ...request, id });
    return { id, response };
  }

  private fromUpstream(upstream: Upstream, message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) {
      const id = `${this.nextClientId++}`;
      this.fromUpstreams.set(id, { upstream, id: message.id });
      this.toClient({ ...message, id });
    } else if (isJSONRPCNotification(message)) {
      this.toClient(this.rewriteUpstreamNotification(upstream, message));
    } else if (message.id !== undefined) {
      const waiter = upstream.waiting.get(message.id);
      upstream.waiting.delete(message.id);
      waiter?.(message);
    }
  }

  private rewriteUpstreamNotification(upstream: Upstream, notification: JSONRPCNotification): JSONRPCNotification {
    const params: Params = notification.params ?? {};
    LIST_CHANGED[notification.method]?.forEach((name) => this.catalogue.delete(name));
    if (notification.method === 'notifications/cancelled') {
      // The upstream gave up on one of its requests to the client: name it by the id the client saw.
      const entry = [...this.fromUpstreams].find(([, origin]) => origin.upstream === upstream && origin.id === params['requestId']);
      return entry ? { ...notification, params: { ...params, requestId: entry[0] } } : notification;
    }
    if (notification.method === 'notifications/resources/updated') {
      const uri = String(params['uri']);
      return { ...notification, params: { ...params, uri: this.exposedUriFor(upstream, uri) } };
    }
    return notification;
  }

  /** The URI the client was shown for an upstream's resource, as of the last resources/list. */
  private exposedUriFor(upstream: Upstream, uri: string): string {
    return this.exposedUris.get(`${upstream.index} ${uri}`) ?? uri;
  }

  private relayNotification(notification: JSONRPCNotification): void {
    const params: Params = notification.params ?? {};
    if (notification.method === 'notifications/cancelled') {
      const target = this.forwarded.get(params['requestId'] as RequestId);
      if (target) this.send(target.upstream, { ...notification, params: { ...params, requestId: target.id } });
      return;
    }
    this.upstreams.forEach((upstream) => this.send(upstream, notification));
  }

  private send(upstream: Upstream, message: JSONRPCMessage): void {
    upstream.transport.send(message).catch((error: unknown) => {
      const waiter = isJSONRPCRequest(message) ? upstream.waiting.get(message.id) : undefined;
      if (waiter && isJSONRPCRequest(message)) {
        upstream.waiting.delete(message.id);
        waiter(errorResponse(message.id, `${describeUrl(upstream.url)}: ${messageOf(error)}`));
      } else {
        this.events.log(`${describeUrl(upstream.url)}: could not send ${'method' in message ? message.method : 'a response'}: ${messageOf(error)}`);
      }
    });
  }

  private lost(upstream: Upstream): void {
    this.upstreams = this.upstreams.filter((u) => u !== upstream);
    this.catalogue.clear();
    for (const [id, waiter] of upstream.waiting) waiter(errorResponse(id, `${describeUrl(upstream.url)} closed the connection`));
    upstream.waiting.clear();
    this.events.log(`${describeUrl(upstream.url)} closed the connection`);
    if (this.upstreams.length === 0) this.events.ended('every upstream closed its connection');
  }

  private upstreamAt(index: number): Upstream {
    const upstream = this.upstreams.find((u) => u.index === index);
    if (!upstream) throw new Error(`${describeUrl(this.urls[index])} is no longer connected`);
    return upstream;
  }

  private toClient(message: JSONRPCMessage): void {
    this.client.send(message).catch((error: unknown) => this.events.log(`could not write to stdout: ${messageOf(error)}`));
  }
}

function result(id: RequestId, value: Params): JSONRPCMessage {
  return { jsonrpc: '2.0', id, result: value };
}

/** Every capability any upstream has; flags such as listChanged or subscribe are on if any upstream's is. */
function mergeCapabilities(all: Params[]): Params {
  const merged: Params = {};
  for (const capabilities of all) {
    for (const [name, value] of Object.entries(capabilities)) {
      const into = (merged[name] ?? {}) as Params;
      for (const [flag, on] of Object.entries((value ?? {}) as Params)) into[flag] = typeof on === 'boolean' ? Boolean(into[flag]) || on : on;
      merged[name] = into;
    }
  }
  return merged;
}
