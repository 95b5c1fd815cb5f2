import type { IncomingHttpHeaders } from 'node:http';
import type { CallResponse } from '../calls/call-response';
import type { BridgeOptions, ProviderAnswer, ProviderError, ProviderOperation } from '@arbor/provider-adapters';
import type { CallUsage } from '../calls/usage';
import type { GatewaySettings } from '../gateway-settings';
import type { AnswerIds } from './answer-ids';
import type { AnswerDocument, AnswerText } from './answer-text';
import type { RequestText } from './request-text';
import type { StreamedAnswer } from '../spend/usage-estimate';

/**
 * Watches an answer stream on its way to the client, event by event: learns the usage it reports
 * and notices an error event the upstream sent, and may rewrite what the client gets (never
 * holding back more than an incomplete event).
 */
export interface StreamTap {
  /** What to send on for this piece of the upstream stream ('' while an event is incomplete; bytes as they came for `raw` taps). */
  push(chunk: Buffer | string): string | Buffer;
  /** The rest, when the upstream ended. */
  end(): string;
  readonly usage: CallUsage | undefined;
  /** The error event the upstream sent in its stream, if it did (the client got it as it was). */
  readonly error: ProviderError | undefined;
  /**
   * For families that keep their answers: the whole answer the stream's last event carried
   * (that event is then held back until end(), so that it is kept before the client sees it).
   */
  readonly final?: Record<string, unknown>;
  /**
   * For families whose usage chunk carries the call's cost (OpenAI-format, as OpenRouter and LiteLLM
   * clients read it): the usage chunk the client asked for and what followed it, held back since
   * it arrived and written now with the cost in `usage.cost`. Called once, after end().
   */
  release?(cost: number): string;
  /** The answer is bytes (audio), not events: nothing in it to estimate usage from, so nothing of it is kept. */
  readonly raw?: boolean;
}

/** An error as one endpoint family answers it. */
export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  /** The JSON body. */
  body: unknown;
}

/**
 * How an endpoint family reaches deployments that do not serve its operation: through another
 * family's operation (chat completions), its requests and answers translated both ways.
 */
export interface Bridge {
  /** The family whose operation is called instead. */
  readonly via: EndpointCodec;
  /**
   * The request in `via`'s wire format (gateway fields such as drop_params carried over); what
   * `via` cannot carry is refused with 400 naming the provider, or dropped under drop_params.
   */
  request(body: Record<string, unknown>, options: BridgeOptions): Record<string, unknown>;
  /** `via`'s answer (JSON or stream) in this family's wire format, streams event by event. */
  answer(answer: ProviderAnswer, body: Record<string, unknown>, streamed: boolean): ProviderAnswer;
  /**
   * After the upstream refused the request as too long for its context window, a shorter one to
   * try on the same deployment (the family's own truncation, which a native upstream does itself);
   * undefined when the request does not ask for it or cannot be shortened, and the error stands.
   */
  shorten?(body: Record<string, unknown>, error: ProviderError): Record<string, unknown> | undefined;
}

/**
 * One endpoint family's wire format (a codec): what the call pipeline needs to know about it and
 * nothing about keys, limits, routing, cost or spend, which the pipeline does the same for all.
 */
export interface EndpointCodec {
  /** As engineers call it: `openai-chat`, `anthropic-messages`. */
  readonly name: string;
  /** What it asks of a provider that serves it natively. */
  readonly operation: ProviderOperation;
  /** For messages naming a provider that offers none of it. */
  readonly description: string;
  /**
   * LiteLLM's call types that name it (`completion`, `acompletion`), under which the response cache
   * keeps its answers (`cache_params.supported_call_types`); none: its answers are never cached.
   */
  readonly callTypes?: readonly string[];
  /** POST paths it answers. */
  readonly paths: readonly string[];
  /**
   * How its requests come: a JSON object (the default), or multipart/form-data, whose text fields
   * become the body's members and whose files are spooled to disk as UploadedFiles.
   */
  readonly requestFormat?: 'json' | 'multipart';
  /** Whether the call asks for a stream. */
  streamed(body: Record<string, unknown>): boolean;
  /** The request headers passed on to a deployment serving the operation natively. */
  forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> | undefined;
  /** Last touches to the upstream body of a native call (asking a stream for its usage, say). */
  prepare(upstreamBody: Record<string, unknown>, params: ReadonlySet<string>, streamed: boolean): void;
  /** The usage of a whole answer (`request`: what was asked, for answers that do not say all of it); undefined when it reports none. */
  usageOfAnswer(body: Buffer, request: Record<string, unknown>): CallUsage | undefined;
  /** A JSON answer with the call's cost in its usage, where the family's clients look for it (`usage.cost`). */
  withCost?(body: Buffer, cost: number): Buffer;
  /**
   * What watches a stream on its way to the client. `keepsFinal`: the answer is to be kept, its
   * ending event held back until the pipeline has kept it. `ids`: the ids the answer is to carry in
   * place of the upstream's (a family whose answers the gateway keeps under ids of its own).
   */
  streamTap(body: Record<string, unknown>, settings: GatewaySettings, keepsFinal?: boolean, ids?: AnswerIds): StreamTap;
  /** Counted by the gateway when the client hung up before the upstream reported usage: the prompt and what was streamed. */
  estimateUsage(body: Record<string, unknown>, streamed?: StreamedAnswer): Promise<CallUsage>;
  /** Any error (a ProviderError, a Nest HTTP exception, anything else as a 500) in the family's envelope. */
  renderError(error: unknown): RenderedError;
  /** The events that end a stream the upstream broke off (`tap`: what the stream showed so far). */
  streamErrorEvent(error: ProviderError, tap: StreamTap): string;
  /** How deployments without the operation are reached; none means they are refused with 400. */
  readonly bridge?: Bridge;
  /** Where its requests carry text (prompts, system text, tool results), for the stages that read it; none: they find none. */
  readonly requestText?: RequestText;
  /** Where its answers carry the model's text (JSON answers and stream events), for the stages that read it; none: they find none. */
  readonly answerText?: AnswerText;
  /** How its whole answers read as documents, when not all of them are JSON; none: each is a JSON document. */
  readonly answerDocument?: AnswerDocument;
}

/** Answers with `error` in the codec's envelope; a stream already under way (status gone) is closed rather than left hanging. */
export function sendError(codec: EndpointCodec, response: CallResponse, error: unknown): void {
  if (response.headersSent) return void response.end();
  const rendered = codec.renderError(error);
  const { status, headers } = rendered;
  const body = JSON.stringify(rendered.body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
}
