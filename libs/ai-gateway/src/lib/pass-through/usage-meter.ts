import type { EndpointCodec, StreamTap } from '../endpoints/endpoint-codec';
import type { CallUsage } from '../calls/usage';
import type { GatewaySettings } from '../gateway-settings';

// A JSON answer is kept (the chunks already read, by reference) to read its usage at the end; past this it is not.
const MAX_JSON_BYTES = 64 * 1024 * 1024;
// The vendor's model name is near the start of every answer and stream that names one.
const MODEL_SCAN_BYTES = 16 * 1024;
const MODEL = /"model"\s*:\s*"((?:[^"\\]|\\.){1,200})"/;

/**
 * Reads the usage and the model of a pass-through answer as its bytes go by, without touching
 * them: a JSON answer through its family's `usageOfAnswer` at the end, a stream through the
 * family's stream tap (whose rewritten output is not used: the client gets the upstream's bytes).
 */
export class UsageMeter {
  private readonly tap: StreamTap | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private head = '';
  private learnedModel: string | undefined;

  constructor(
    private readonly codec: EndpointCodec,
    contentType: string,
    settings: GatewaySettings,
  ) {
    // Asked to keep usage, the taps pass events as they are; here only what they learn matters.
    this.tap = contentType.startsWith('text/event-stream') ? codec.streamTap({ stream_options: { include_usage: true } }, settings) : undefined;
  }

  get model(): string | undefined {
    return this.learnedModel;
  }

  push(chunk: Buffer): void {
    if (this.learnedModel === undefined && this.head.length < MODEL_SCAN_BYTES) {
      this.head += chunk.subarray(0, MODEL_SCAN_BYTES).toString('utf8');
      this.learnedModel = MODEL.exec(this.head)?.[1];
    }
    if (this.tap) return void this.tap.push(chunk);
    if (this.size > MAX_JSON_BYTES) return;
    this.size += chunk.length;
    this.chunks.push(chunk);
  }

  /** The answer's usage, once it ended; undefined when it reported none. */
  usage(): CallUsage | undefined {
    if (this.tap) {
      this.tap.end();
      return this.tap.usage;
    }
    if (this.size > MAX_JSON_BYTES) return undefined;
    try {
      return this.codec.usageOfAnswer(Buffer.concat(this.chunks));
    } catch {
      return undefined;
    }
  }
}
