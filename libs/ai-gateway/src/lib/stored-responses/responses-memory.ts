import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { errorFields } from '@arbor/observability';
import { itemId, ProviderError, responseShell } from '@arbor/provider-adapters';
import { CallPipeline } from '../calls/call-pipeline';
import type { CallResponse } from '../calls/call-response';
import type { StagePass } from '../calls/call-stage';
import { CollectedAnswer } from '../calls/collected-answer';
import type { CallExtension } from '../calls/call-routes';
import { requestedAlias } from '../calls/requested-alias';
import type { GatewayDeployment } from '../config/gateway-config';
import { DeploymentRouter } from '../deployment-router';
import { badRequest } from '../gateway-errors';
import type { GatewayCaller } from '../keys/key-verifier';
import type { EndpointCodec } from '../endpoints/endpoint-codec';
import { OPENAI_RESPONSES, OPENAI_RESPONSES_COMPACT } from '../endpoints/openai-responses/openai-responses.codec';
import { BackgroundStream, SSE_HEADERS } from './background-stream';
import { asInput, conversationItems, inputItemsOf, referencedIds } from './conversation';
import { checkedId, itemNotFound, ResponsesStore, type ReferencedItem } from './responses-store';
import type { StoredResponse } from './stored-response.entity';

// Running background responses are checked this often for a cancellation made on another replica.
const CANCEL_CHECK_MS = 1000;
// A WebSocket connection keeps this many of its latest responses in memory (stored or not).
const SOCKET_MEMORY = 16;

/** A stored foreground response's keeping: its id, and what keeps its answer. */
interface Keeping {
  id: string;
  keep(answer: Pick<StoredResponse, 'status' | 'deploymentId' | 'upstreamId' | 'response'>): Promise<void>;
}

/** What a request refers to of earlier turns: the conversation before it, and items referenced by id. */
interface Recalled {
  earlier: readonly StoredResponse[];
  references: ReadonlyMap<string, ReferencedItem>;
}

/**
 * The responses of one WebSocket connection, kept in memory while it is open, so that a turn may
 * continue one created with `store: false` (as OpenAI's WebSocket mode allows).
 */
export class ConnectionMemory {
  private readonly responses = new Map<string, StoredResponse>();

  get(id: string): StoredResponse | undefined {
    return this.responses.get(id);
  }

  /** An item of one of its responses' output or input, by id. */
  item(id: string): ReferencedItem | undefined {
    for (const response of this.responses.values()) {
      const output = Array.isArray(response.response['output']) ? (response.response['output'] as Record<string, unknown>[]) : [];
      const item = [...output, ...response.input].find((candidate) => candidate['id'] === id);
      if (item) return { item, deploymentId: response.deploymentId, upstreamId: response.upstreamId };
    }
    return undefined;
  }

  remember(response: StoredResponse): void {
    this.responses.set(response.id, response);
    if (this.responses.size > SOCKET_MEMORY) this.responses.delete(this.responses.keys().next().value as string);
  }
}

/**
 * The Responses API's memory around the call pipeline: `previous_response_id` continued from the
 * stored conversation (the upstream's own state used when the same deployment answered the turn
 * before natively, else the earlier turns sent as input items, so that any deployment of any
 * provider, on any replica, continues it); every answer with `store` (the default) kept before
 * the client has its last byte; `background` calls answered at once as queued and run here,
 * cancellable from any replica.
 */
@Injectable()
export class ResponsesMemory implements CallExtension, OnModuleDestroy {
  readonly codecs = [OPENAI_RESPONSES, OPENAI_RESPONSES_COMPACT];
  private readonly codec = OPENAI_RESPONSES;
  private readonly logger = new Logger('ai-gateway');
  /** Background responses running in this process, by id. */
  private readonly running = new Map<string, CollectedAnswer | BackgroundStream>();
  private cancelChecks: NodeJS.Timeout | undefined;

  constructor(
    private readonly pipeline: CallPipeline,
    private readonly store: ResponsesStore,
    private readonly deployments: DeploymentRouter,
  ) {}

  onModuleDestroy(): void {
    clearInterval(this.cancelChecks);
    for (const run of this.running.values()) run.abandon();
  }

  async handle(
    codec: EndpointCodec,
    caller: GatewayCaller,
    body: Record<string, unknown>,
    request: IncomingMessage,
    response: CallResponse,
    connection?: ConnectionMemory,
  ): Promise<void> {
    const previousId = body['previous_response_id'];
    if (previousId !== undefined && previousId !== null && (typeof previousId !== 'string' || previousId === ''))
      throw badRequest('previous_response_id must be a response id.', 'previous_response_id');
    const earlier = typeof previousId === 'string' ? await this.earlierTurns(checkedId(previousId, 'previous_response_id'), caller, connection) : [];
    const recalled: Recalled = { earlier, references: await this.referencedItems(body['input'], caller, connection) };
    // A compaction is not a response: it is neither stored nor run in the background.
    if (codec !== this.codec)
      return this.pipeline.handle(codec, caller, body, request.headers, response, {
        request: (_asked, deployment, native) => withConversation(body, recalled, deployment, native),
      });
    const stored = body['store'] !== false;
    const background = body['background'] === true;
    if (!background && stored) return this.answerStored(caller, body, request, response, recalled, connection);
    if (!background) return this.pipeline.handle(this.codec, caller, body, request.headers, response, this.ownStage(caller, body, recalled, connection));

    if (!stored) throw badRequest('A background response must be stored: remove store: false.', 'store');
    const streamed = body['stream'] === true;
    if (streamed && connection) throw badRequest('A background response is not streamed over a WebSocket: create it over HTTP, or without background.', 'background');
    // Refusals a client can act on come now, not as a failed response later.
    requestedAlias(body, caller, this.deployments);
    const id = itemId('resp');
    const queued = { ...responseShell(body, id, Math.floor(Date.now() / 1000)), status: 'queued', background: true };
    await this.store.save(
      this.store.record(caller, {
        id,
        status: 'queued',
        deploymentId: null,
        upstreamId: null,
        previousResponseId: typeof previousId === 'string' ? previousId : null,
        input: inputItemsOf(body['input']),
        response: queued,
        background: true,
      }),
    );
    if (streamed) {
      // The stream is the creating client's while it stays; the response runs on when it leaves.
      response.writeHead(200, SSE_HEADERS);
      return void this.runInBackground(id, caller, body, request, recalled, new BackgroundStream(id, this.store, response as ServerResponse));
    }
    const answer = JSON.stringify(queued);
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer);
    void this.runInBackground(id, caller, body, request, recalled, new CollectedAnswer());
  }

  /** The items the input references by id (item_reference), from the connection's memory or the store; 404 naming one not found. */
  private async referencedItems(input: unknown, caller: GatewayCaller, connection: ConnectionMemory | undefined): Promise<Map<string, ReferencedItem>> {
    const ids = referencedIds(input).map((id) => checkedId(id, 'input'));
    const found = new Map<string, ReferencedItem>();
    for (const id of ids) {
      const local = connection?.item(id);
      if (local) found.set(id, local);
    }
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) for (const [id, item] of await this.store.items(missing, caller)) found.set(id, item);
    const unknown = ids.find((id) => !found.has(id));
    if (unknown !== undefined) throw itemNotFound(unknown);
    return found;
  }

  /** `id` and the turns before it, oldest first: from the connection's memory where it has them, else from the store. */
  private async earlierTurns(id: string, caller: GatewayCaller, connection: ConnectionMemory | undefined): Promise<StoredResponse[]> {
    const local = connection?.get(id);
    if (!local) return this.store.conversation(id, caller);
    return local.previousResponseId ? [...(await this.earlierTurns(local.previousResponseId, caller, connection)), local] : [local];
  }

  /**
   * A stored response answered in the foreground, under an id of the gateway's: reserved in the
   * store (visible on every replica before the answer's last byte), completed right after the
   * answer, forgotten when the call ended without one.
   */
  private async answerStored(
    caller: GatewayCaller,
    body: Record<string, unknown>,
    request: IncomingMessage,
    response: CallResponse,
    recalled: Recalled,
    connection: ConnectionMemory | undefined,
  ): Promise<void> {
    const { record: reservation, reserved } = this.store.open(caller, { previousResponseId: recalled.earlier.at(-1)?.id ?? null, input: inputItemsOf(body['input']) });
    const { id } = reservation;
    // Awaited once the answer is there; a failure then fails the call (its answer could not be kept).
    reserved.catch(() => undefined);
    let completed = false;
    const keep: Keeping['keep'] = async (answer) => {
      await reserved;
      completed = true;
      const record = { ...reservation, ...answer };
      connection?.remember(record);
      const complete = () => this.store.complete(record).catch((error: unknown) => this.logger.warn('a stored response could not be completed', { err: errorFields(error) }));
      // After the answer has been written: its last byte does not wait for the completion, unless the database is behind.
      if (this.store.behind) await complete();
      else setImmediate(complete);
    };
    try {
      await this.pipeline.handle(this.codec, caller, body, request.headers, response, this.ownStage(caller, body, recalled, connection, { id, keep }));
    } finally {
      if (!completed) void reserved.then(() => this.store.forget(id)).catch(() => undefined);
    }
  }

  /**
   * This family's own stage in the call (run before the registered ones): on the request, the
   * earlier turns in; the answer's ids the gateway's; on the answer, the answer kept (as `keeping`
   * says, for a stored foreground response) before the client has its last byte, so that its next turn finds it.
   */
  private ownStage(caller: GatewayCaller, body: Record<string, unknown>, recalled: Recalled, connection?: ConnectionMemory, keeping?: Keeping, backgroundId?: string): StagePass {
    const previousId = recalled.earlier.at(-1)?.id ?? null;
    const asked = backgroundId ? { ...body, background: false } : body;
    const request: StagePass['request'] = (_asked, deployment, native) => withConversation(asked, recalled, deployment, native);
    // The ids the answer carries: the gateway's for a response it keeps, and for the one it continues.
    const ids = keeping || previousId ? { ...(keeping ? { id: keeping.id } : {}), earlier: upstreamIds(recalled), ...(previousId ? { previous: previousId } : {}) } : undefined;
    // An answer nobody keeps (store: false, over HTTP) is neither held back nor, unless it continues one, parsed.
    if (!keeping && !connection && !backgroundId) return { request, ...(ids ? { ids } : {}) };
    const input = inputItemsOf(body['input']);
    return {
      request,
      ...(ids ? { ids } : {}),
      answer: async (document, deployment, native) => {
        const id = keeping?.id ?? backgroundId ?? String(document['id']);
        const response = { ...document, id, previous_response_id: previousId, ...(backgroundId ? { background: true } : {}) };
        const upstreamId = native && typeof document['id'] === 'string' ? document['id'] : null;
        const status = typeof document['status'] === 'string' ? document['status'] : 'completed';
        if (backgroundId) {
          await this.store.settle(backgroundId, status, response, { deploymentId: deployment.id, upstreamId });
          return;
        }
        if (!keeping)
          return connection?.remember(
            this.store.record(caller, { id, status, deploymentId: deployment.id, upstreamId, previousResponseId: previousId, input, response, background: false }),
          );
        await keeping.keep({ status, deploymentId: deployment.id, upstreamId, response });
      },
    };
  }

  /**
   * Runs a background response to its end (or its cancellation), its state kept in the store; a
   * streamed one's events logged as they come, ending with response.failed and error if it failed.
   */
  private async runInBackground(
    id: string,
    caller: GatewayCaller,
    body: Record<string, unknown>,
    request: IncomingMessage,
    recalled: Recalled,
    sink: CollectedAnswer | BackgroundStream,
  ): Promise<void> {
    this.running.set(id, sink);
    this.cancelChecks ??= setInterval(() => void this.checkCancelled(), CANCEL_CHECK_MS).unref();
    let shell: Record<string, unknown> = { id, object: 'response', background: true };
    let error: { code: string; message: string } | undefined;
    try {
      shell = (await this.store.find(id, caller)).response;
      await this.store.settle(id, 'in_progress', { ...shell, status: 'in_progress' });
      await this.pipeline.handle(this.codec, caller, body, request.headers, sink, this.ownStage(caller, body, recalled, undefined, undefined, id));
      if (sink instanceof CollectedAnswer && sink.status !== 200) error = failureOf(sink.text());
      if (sink instanceof BackgroundStream && !sink.complete) error = { code: 'server_error', message: 'The upstream stream ended before the response was complete.' };
    } catch (thrown) {
      if (!(thrown instanceof ProviderError)) this.logger.warn('a background response could not be completed', { err: errorFields(thrown) });
      error =
        thrown instanceof ProviderError
          ? { code: thrown.code ?? thrown.type, message: thrown.message }
          : { code: 'server_error', message: 'The gateway failed to complete the response.' };
    } finally {
      const failed = { ...shell, status: 'failed', error };
      if (error && (await this.store.settle(id, 'failed', failed).catch(() => false)) && sink instanceof BackgroundStream && !sink.complete) {
        sink.add({ type: 'response.failed', response: failed }, { type: 'error', code: error.code, message: error.message, param: null });
      }
      if (sink instanceof BackgroundStream) await sink.close();
      this.running.delete(id);
      if (this.running.size === 0) {
        clearInterval(this.cancelChecks);
        this.cancelChecks = undefined;
      }
    }
  }

  /** Stops a background response of this process (its upstream call too); true when it ran here. */
  stop(id: string): boolean {
    const run = this.running.get(id);
    run?.abandon();
    return run !== undefined;
  }

  private async checkCancelled(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      for (const id of await this.store.cancelledAmong([...this.running.keys()])) this.stop(id);
    } catch (error) {
      this.logger.warn('cancellations of background responses could not be read', { err: errorFields(error) });
    }
  }
}

/**
 * The request for one deployment, continuing what it refers to: the upstream that made an earlier
 * response natively still holds it (its own id is sent, item references stay); any other gets the
 * earlier turns as input items before this turn's input, and referenced items in full.
 */
function withConversation(body: Record<string, unknown>, recalled: Recalled, deployment: GatewayDeployment, native: boolean): Record<string, unknown> {
  const holds = (made: { deploymentId: string | null; upstreamId: string | null }) => native && made.deploymentId === deployment.id && made.upstreamId !== null;
  const resolved =
    recalled.references.size === 0 ? body : { ...body, input: (body['input'] as Record<string, unknown>[]).flatMap((item) => resolve(item, recalled.references, holds)) };
  const previous = recalled.earlier.at(-1);
  if (!previous) return resolved;
  if (holds(previous)) return { ...resolved, previous_response_id: previous.upstreamId };
  const input = inputItemsOf(resolved['input']).map(({ id: _id, ...item }) => item);
  const history = [...conversationItems(recalled.earlier), ...input];
  // A bridged call echoes previous_response_id in its answer; a native upstream would look it up.
  const { previous_response_id: _previous, ...rest } = resolved;
  return native ? { ...rest, input: history } : { ...resolved, input: history };
}

/** The earlier responses an upstream may name in an answer by its own ids (continued from its state): its id → the gateway's. */
function upstreamIds(recalled: Recalled): Map<string, string> {
  const ids = new Map<string, string>();
  for (const made of recalled.earlier) if (made.upstreamId !== null && made.upstreamId !== made.id) ids.set(made.upstreamId, made.id);
  return ids;
}

/** An input item with an item reference replaced by the item, unless the upstream holds it. */
function resolve(item: Record<string, unknown>, references: ReadonlyMap<string, ReferencedItem>, holds: (made: ReferencedItem) => boolean): Record<string, unknown>[] {
  const found = item['type'] === 'item_reference' ? references.get(String(item['id'])) : undefined;
  if (!found || holds(found)) return [item];
  const input = asInput(found.item);
  return input ? [input] : [];
}

/** The error object of a failed background call, from the error body it would have answered. */
function failureOf(text: string): { code: string; message: string } {
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; type?: unknown; message?: unknown } }).error;
    return { code: String(error?.code ?? error?.type ?? 'server_error'), message: String(error?.message ?? 'The response failed.') };
  } catch {
    return { code: 'server_error', message: 'The response failed.' };
  }
}
