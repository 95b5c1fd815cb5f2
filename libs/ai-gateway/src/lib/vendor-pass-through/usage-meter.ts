import { StringDecoder } from 'node:string_decoder';
import type { EndpointCodec, StreamTap } from '../endpoints/endpoint-codec';
import { type CallUsage, NO_USAGE } from '../calls/usage';
import { addUsd, usdNumber, usdTimes } from '../pricing/usd';
import type { GatewaySettings } from '../gateway-settings';

// A JSON answer is kept (the chunks already read, by reference) to read its usage at the end; past this it is not.
const MAX_JSON_BYTES = 64 * 1024 * 1024;
// The vendor's model name is near the start of every answer and stream that names one.
const MODEL_SCAN_BYTES = 16 * 1024;
const MODEL = /"model"\s*:\s*"((?:[^"\\]|\\.){1,200})"/;

/** USD for usage of a model as the vendor names it. */
export type ModelPricer = (model: string, usage: CallUsage) => number;

/** What a pass-through answer cost, read as its bytes go by without touching them. */
export interface AnswerMeter {
  push(chunk: Buffer): void;
  /** Once the answer ended: its usage (summed, for batch results) and cost. */
  result(): { usage: CallUsage; cost: number };
}

/**
 * One model call's answer: a JSON answer read by its family's `usageOfAnswer` at the end, a
 * stream by the family's stream tap (whose rewritten output is not used: the client gets the
 * upstream's bytes); priced at the model the answer names (else `fallbackModel`).
 */
export class UsageMeter implements AnswerMeter {
  private readonly tap: StreamTap | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private head = '';
  private model: string | undefined;

  constructor(
    private readonly codec: EndpointCodec,
    contentType: string,
    settings: GatewaySettings,
    private readonly price: ModelPricer,
    private readonly fallbackModel: string,
  ) {
    // Asked to keep usage, the taps pass events as they are; here only what they learn matters.
    this.tap = contentType.startsWith('text/event-stream') ? codec.streamTap({ stream_options: { include_usage: true } }, settings) : undefined;
  }

  push(chunk: Buffer): void {
    if (this.model === undefined && this.head.length < MODEL_SCAN_BYTES) {
      this.head += chunk.subarray(0, MODEL_SCAN_BYTES).toString('utf8');
      this.model = MODEL.exec(this.head)?.[1];
    }
    if (this.tap) return void this.tap.push(chunk);
    if (this.size > MAX_JSON_BYTES) return;
    this.size += chunk.length;
    this.chunks.push(chunk);
  }

  result(): { usage: CallUsage; cost: number } {
    const usage = this.usage() ?? NO_USAGE;
    return { usage, cost: this.price(this.model ?? this.fallbackModel, usage) };
  }

  private usage(): CallUsage | undefined {
    if (this.tap) {
      this.tap.end();
      return this.tap.usage;
    }
    if (this.size > MAX_JSON_BYTES) return undefined;
    try {
      return this.codec.usageOfAnswer(Buffer.concat(this.chunks), {});
    } catch {
      return undefined;
    }
  }
}

/**
 * A finished batch's results (JSON lines, one answer each): every line's usage read by the first
 * family that finds one in it (the provider's native families, in order), priced at the model the
 * line names times the batch price factor, and summed. Lines are read as they arrive.
 */
export class BatchResultsMeter implements AnswerMeter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private usage: CallUsage = { ...NO_USAGE };
  private cost = 0;

  constructor(
    private readonly codecs: readonly EndpointCodec[],
    private readonly price: ModelPricer,
    private readonly priceFactor: number,
  ) {}

  push(chunk: Buffer): void {
    const text = this.pending + this.decoder.write(chunk);
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      this.pending = text;
      return;
    }
    this.pending = text.slice(end + 1);
    for (const line of text.slice(0, end).split('\n')) this.line(line);
  }

  result(): { usage: CallUsage; cost: number } {
    this.line(this.pending + this.decoder.end());
    this.pending = '';
    return { usage: this.usage, cost: this.cost };
  }

  private line(line: string): void {
    if (!line.includes('"usage"')) return;
    const bytes = Buffer.from(line);
    for (const codec of this.codecs) {
      const usage = codec.usageOfAnswer(bytes, {});
      if (!usage) continue;
      const model = MODEL.exec(line)?.[1];
      if (model !== undefined) this.cost = addUsd(this.cost, usdNumber(usdTimes(this.price(model, usage), this.priceFactor)));
      this.usage = sum(this.usage, usage);
      return;
    }
  }
}

function sum(a: CallUsage, b: CallUsage): CallUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    ...(a.cacheWriteTokens || b.cacheWriteTokens ? { cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0) } : {}),
  };
}
