import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayDeployment } from '../config/gateway-config';
import type { AnswerIds } from '../endpoints/answer-ids';
import type { EndpointCodec } from '../endpoints/endpoint-codec';
import type { GatewayCaller } from '../keys/key-verifier';
import type { CallRecordContent } from '../spend/spend-recorder';

/** What a stage sees of a call as it opens, before the plan: the family, the caller, the request as sent. */
export interface StageCall {
  readonly codec: EndpointCodec;
  readonly caller: GatewayCaller;
  readonly body: Record<string, unknown>;
  readonly headers: IncomingHttpHeaders;
  /** The alias the request names, as checked for the caller. */
  readonly alias: string;
  /** Another part of this call keeps its answer as state (a new object under its own id each time). */
  readonly keepsAnswer: boolean;
}

/** An answer kept from an earlier call, sent in place of an upstream's (no upstream, no cost). */
export interface ReplayedAnswer {
  /** A stream's events as they were sent, in one piece, or the JSON answer. */
  readonly streamed: boolean;
  readonly contentType: string;
  readonly body: string;
  /** The deployment that first answered it, for the routing headers and the spend record. */
  readonly deploymentId: string;
  readonly provider: string;
  /** What the stage says of it in the answer's headers (x-arbor-cache-hit). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The answer a successful call gave its client, after it left: what a stage may keep. */
export interface DeliveredAnswer {
  readonly status: number;
  readonly streamed: boolean;
  /** Bytes (audio), not events: no text of it went through `piece`. */
  readonly raw: boolean;
  readonly contentType: string;
  /** A JSON answer as sent; for a stream, the pieces went through `piece` one by one and this is undefined. */
  readonly text?: string;
  readonly deploymentId: string;
  readonly provider: string;
}

/**
 * A stage's part in one call: hooks at the pipeline's points, in this order — before the plan, on
 * the request (each attempt), on each streamed piece, on the answer, after the call. Every hook is
 * optional; a stage with no part in a call returns no pass at all, so that it costs that call nothing.
 */
export interface StagePass {
  /** Before the caller's limits and the plan: a check that refuses the call by throwing (a ProviderError in the family's envelope). */
  check?(): Promise<void>;
  /** Before the plan (after the caller's limits): an answer that takes the upstream's place; never throws (a failure is no answer). */
  beforePlan?(): Promise<ReplayedAnswer | undefined>;
  /** On the request: the request for `deployment`, before any bridge translates it; `native` when it serves the family's operation. */
  request?(body: Record<string, unknown>, deployment: GatewayDeployment, native: boolean): Record<string, unknown>;
  /** The ids the answer carries in place of the upstream's (in its JSON document, in the events of a stream). */
  readonly ids?: AnswerIds;
  /**
   * On a stream's events on their way to the client (whole events, before `piece` sees them): what
   * goes on in their place — it may hold some back until more has come; `final` (the stream's end)
   * lets them all go. A ProviderError thrown ends the stream with it, in the family's error event
   * (the call costs what the upstream used).
   */
  events?(text: string, final: boolean): string;
  /**
   * At a stream's end, once every event has passed `events` and before the last ones go to the
   * client: a check of what was streamed (it may wait on work begun as the events passed). A
   * ProviderError thrown ends the stream with it, in the family's error event, instead.
   */
  ended?(): Promise<void>;
  /** On each streamed piece of text the client gets (whole events, the last ones included). */
  piece?(text: string): void;
  /**
   * On a JSON answer (or a stream's ending document), before the client or any other stage sees
   * it: the answer to send in its place, or undefined to leave it. A ProviderError thrown refuses
   * the answer (the call costs what the upstream used).
   */
  rewrite?(document: Record<string, unknown>): Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;
  /**
   * On the answer: its whole document as the upstream made it (the JSON answer, or the stream's
   * ending event, held back until this has run), before the client has its last byte.
   */
  answer?(document: Record<string, unknown>, deployment: GatewayDeployment, native: boolean): Promise<void>;
  /** After the call: the answer of a call that succeeded, off the request path. */
  after?(answer: DeliveredAnswer): void;
  /**
   * When the call settles (once, `failed` or not): what the stage adds to the call's record
   * (call_records.content), read when the record is written, off the request path.
   */
  recorded?(failed: boolean): CallRecordContent | undefined;
}

/**
 * A stage of the call pipeline (the response cache, guardrails…), registered from its own folder.
 * The pipeline knows none by name: it opens each registered stage that is on, in `order`.
 */
export interface CallStage {
  /** For logs and tests: `response-cache`. */
  readonly name: string;
  /** Lower runs first at each point. */
  readonly order: number;
  /** Off: never opened (read once, when it registers). */
  readonly on: boolean;
  /** Its part in the call, or undefined when it takes none; may throw a 400 for its own malformed controls. */
  open(call: StageCall): StagePass | undefined;
}

/**
 * The stages on the call path, in order: each stage's folder adds its own (its service registers
 * itself when constructed). Stages that are off are never added, so they cost the call path nothing.
 */
@Injectable()
export class CallStages {
  private readonly list: CallStage[] = [];

  add(stage: CallStage): void {
    if (!stage.on) return;
    const at = this.list.findIndex((other) => other.order > stage.order);
    this.list.splice(at < 0 ? this.list.length : at, 0, stage);
  }

  /** The stages that are on, in order (the same array each time: read on every call, never copied). */
  get active(): readonly CallStage[] {
    return this.list;
  }
}
