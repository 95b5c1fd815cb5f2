import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { sendError } from '../endpoints/endpoint-codec';
import { OPENAI_RESPONSES } from '../endpoints/openai-responses/openai-responses.codec';
import { badRequest } from '../gateway-errors';
import { GatewayAuthentication } from '../gateway-key.guard';
import { followBackgroundStream } from './background-stream';
import { ResponsesMemory } from './responses-memory';
import { checkedId, RUNNING, ResponsesStore } from './responses-store';

const PATH = /^(?:\/v1)?\/responses\/([^/]+)(?:\/(cancel|input_items))?$/;
const MAX_PAGE = 100;

type Action = 'retrieve' | 'delete' | 'cancel' | 'input_items';

/**
 * The stored responses of the Responses API, as OpenAI serves them: GET (a background response's
 * stream again with `?stream=true&starting_after=N`) and DELETE `/v1/responses/{id}`, `POST …/cancel` (background responses) and `GET …/input_items` (paged as
 * OpenAI pages lists), each for the keys of the project that created the response.
 */
@Injectable()
export class StoredResponsesRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly store: ResponsesStore,
    private readonly memory: ResponsesMemory,
  ) {}

  onModuleInit(): void {
    this.routes.add({
      route: '/v1/responses/{id}',
      endpoints: ['/v1', ''].flatMap((version) => [
        { methods: ['GET', 'DELETE'], path: `${version}/responses/{id}` },
        { methods: ['POST'], path: `${version}/responses/{id}/cancel` },
        { methods: ['GET'], path: `${version}/responses/{id}/input_items` },
      ]),
      matches: (method, path) => actionOf(method, path) !== undefined,
      handle: (request, response, path) => this.answer(request, response, path),
    });
  }

  private async answer(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    try {
      const caller = await this.authentication.caller(request);
      const [, rawId = '', suffix] = PATH.exec(path) ?? [];
      const id = checkedId(decodedId(rawId), 'response_id');
      const action = actionOf(request.method ?? '', path);
      const query = new URL(request.url ?? '/', 'http://gateway').searchParams;
      if (action === 'retrieve' && query.get('stream') === 'true') return await followBackgroundStream(this.store, id, caller, query, response);
      if (action === 'retrieve') return send(response, (await this.store.find(id, caller)).response);
      if (action === 'delete') {
        await this.store.delete(id, caller);
        return send(response, { id, object: 'response', deleted: true });
      }
      if (action === 'cancel') {
        const found = await this.store.find(id, caller);
        if (!found.background) throw badRequest('Only responses created with background: true can be cancelled.', 'response_id');
        if (!RUNNING.includes(found.status)) return send(response, found.response);
        const cancelled = { ...found.response, status: 'cancelled' };
        if (await this.store.settle(id, 'cancelled', cancelled)) {
          this.memory.stop(id);
          return send(response, cancelled);
        }
        return send(response, (await this.store.find(id, caller)).response);
      }
      if (suffix === 'input_items') return send(response, page((await this.store.find(id, caller)).input, query));
    } catch (error) {
      sendError(OPENAI_RESPONSES, response, error);
    }
  }
}

function decodedId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest('The response id in the path is not valid percent-encoded UTF-8.', 'response_id');
  }
}

function actionOf(method: string, path: string): Action | undefined {
  const match = PATH.exec(path);
  if (!match) return undefined;
  const suffix = match[2];
  if (suffix === 'cancel') return method === 'POST' ? 'cancel' : undefined;
  if (suffix === 'input_items') return method === 'GET' ? 'input_items' : undefined;
  return method === 'GET' ? 'retrieve' : method === 'DELETE' ? 'delete' : undefined;
}

/** A page of items as OpenAI lists them: `limit` (1–100, 20), `order` (desc by default), `after` / `before` item ids. */
function page(items: readonly Record<string, unknown>[], query: URLSearchParams): Record<string, unknown> {
  const limit = query.get('limit') === null ? 20 : Number(query.get('limit'));
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw badRequest(`limit must be a whole number from 1 to ${MAX_PAGE}.`, 'limit');
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw badRequest('order must be asc or desc.', 'order');
  let ordered = order === 'asc' ? [...items] : [...items].reverse();
  const after = query.get('after');
  if (after !== null) ordered = ordered.slice(positionOf(ordered, after, 'after') + 1);
  const before = query.get('before');
  if (before !== null) ordered = ordered.slice(0, positionOf(ordered, before, 'before'));
  const data = ordered.slice(0, limit);
  return { object: 'list', data, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null, has_more: ordered.length > limit };
}

function positionOf(items: readonly Record<string, unknown>[], id: string, param: string): number {
  const at = items.findIndex((item) => item['id'] === id);
  if (at < 0) throw badRequest(`${param} names no input item of this response.`, param);
  return at;
}

function send(response: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
