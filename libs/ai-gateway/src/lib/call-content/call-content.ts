import { Inject, Injectable } from '@nestjs/common';
import { CallStages, type CallStage, type DeliveredAnswer, type StageCall, type StagePass } from '../calls/call-stage';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { CallRecordContent } from '../spend/spend-recorder';
import { CALL_CONTENT_OFF, type CallContentSettings } from './call-content.settings';

// After guardrails (10), which may change the request, and the response cache (20), whose hits go upstream to no one.
const CALL_CONTENT_ORDER = 90;

/** Where the families carry their prompts: chat and Anthropic `messages` (with `system`), Responses `input` (with `instructions`), `prompt`. */
const REQUEST_CONTENT_FIELDS = ['system', 'instructions', 'messages', 'input', 'prompt'] as const;

/**
 * LiteLLM's general_settings.store_prompts_in_spend_logs as a stage of the call pipeline: a call's
 * messages as they went upstream (after guardrails changed them) and its answer as the client got
 * it (a stream as its events) are kept in the call's record, each cut at the configured number of
 * characters. Off by default, and then never registered: the call path does not know it exists.
 * Never kept: the answer of a failed call, cache hits (no upstream), multipart uploads; realtime
 * sessions do not come through the pipeline. Headers (the key among them) are never kept.
 */
@Injectable()
export class CallContent implements CallStage {
  readonly name = 'call-content';
  readonly order = CALL_CONTENT_ORDER;
  readonly on: boolean;
  readonly settings: CallContentSettings;

  constructor(@Inject(GATEWAY_SETTINGS) gateway: GatewaySettings, stages: CallStages) {
    this.settings = gateway.litellm.callContent ?? CALL_CONTENT_OFF;
    this.on = this.settings.kept;
    stages.add(this);
  }

  /** Families whose requests carry text as JSON; none for multipart uploads. */
  open({ codec }: StageCall): StagePass | undefined {
    if (!codec.requestText || codec.requestFormat === 'multipart') return undefined;
    return new KeptContent(this.settings.maxFieldChars).pass();
  }
}

/** One call's content while the call runs, and as its record stores it. */
class KeptContent implements CallRecordContent {
  /** The family's request as the last attempt sent it upstream. */
  private asked: Record<string, unknown> | undefined;
  private answerDue = false;
  /** The answer as the client got it: a JSON text, or a stream's events (cut at the cap as they come). */
  private answer: string | undefined;
  private streamed = false;
  private events: string[] | undefined = [];
  private eventChars = 0;
  private eventsCut = false;

  constructor(private readonly maxChars: number) {}

  get pending(): boolean {
    return this.answerDue;
  }

  pass(): StagePass {
    return {
      request: (body) => {
        this.asked = body;
        return body;
      },
      piece: (text) => this.gather(text),
      after: (answer) => this.answered(answer),
      recorded: (failed) => {
        // A call that reached no upstream (a cache hit, a refusal) has nothing of its own to keep.
        if (!this.asked) return undefined;
        if (failed) this.events = undefined;
        else this.answerDue = true;
        return this;
      },
    };
  }

  private gather(text: string): void {
    if (!this.events || this.eventsCut) return;
    const room = this.maxChars - this.eventChars;
    if (text.length > room) {
      this.events.push(text.slice(0, room));
      this.eventsCut = true;
      this.eventChars = this.maxChars;
      return;
    }
    this.events.push(text);
    this.eventChars += text.length;
  }

  private answered({ streamed, raw, text }: DeliveredAnswer): void {
    this.answerDue = false;
    if (raw || !this.events) return;
    this.streamed = streamed;
    this.answer = streamed ? this.events.join('') : text;
    this.events = undefined;
  }

  /** The record's content: `messages` (the request's prompt fields), `response`, cut fields as text, `truncated` when any was cut. */
  read(): Record<string, unknown> | null {
    const asked = this.asked;
    if (!asked) return null;
    const fields: Record<string, unknown> = {};
    for (const name of REQUEST_CONTENT_FIELDS) if (asked[name] !== undefined) fields[name] = asked[name];
    const messagesText = JSON.stringify(fields);
    let truncated = messagesText.length > this.maxChars;
    const document: Record<string, unknown> = { messages: truncated ? messagesText.slice(0, this.maxChars) : fields };
    const answer = this.answer;
    if (answer !== undefined) {
      document['streamed'] = this.streamed;
      if (this.streamed) {
        document['response'] = answer;
        truncated ||= this.eventsCut;
      } else if (answer.length > this.maxChars) {
        document['response'] = answer.slice(0, this.maxChars);
        truncated = true;
      } else document['response'] = parsedOrText(answer);
    }
    document['truncated'] = truncated;
    return document;
  }
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
