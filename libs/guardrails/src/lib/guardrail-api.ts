import { isUpstreamTimeout, UpstreamClient } from '@arbor/platform';
import type { GuardrailApiSettings } from './guardrail-config';

const PATH = '/beta/litellm_basic_guardrail_api';
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const UNREACHABLE_STATUSES = new Set([502, 503, 504]);

/** What the gateway tells the API of a call, in LiteLLM's contract. */
export interface GuardrailApiCall {
  readonly texts: readonly string[];
  readonly inputType: 'request' | 'response';
  /** The caller's identity as LiteLLM's request_data names it (key hash and alias, team, end user…). */
  readonly requestData: Readonly<Record<string, string>>;
  /** The client's request headers (values only for those the settings list, the others `[present]`). */
  readonly requestHeaders?: Readonly<Record<string, string | string[] | undefined>>;
  readonly callId?: string;
}

/** The API's verdict; `failedOpen` says why an error of the API let the call go on. */
export type GuardrailApiVerdict =
  | { readonly action: 'NONE'; readonly failedOpen?: string }
  | { readonly action: 'BLOCKED'; readonly reason: string }
  | { readonly action: 'GUARDRAIL_INTERVENED'; readonly texts?: readonly string[] };

/** An error of the API that refuses the call (fail closed). */
export class GuardrailApiError extends Error {}

/**
 * LiteLLM's generic guardrail API (`generic_guardrail_api`): the texts of a request or an answer
 * POSTed to `{api_base}/beta/litellm_basic_guardrail_api` with LiteLLM's fields, the answer one
 * of BLOCKED (with `blocked_reason`), NONE, or GUARDRAIL_INTERVENED (with the texts rewritten, one
 * for each sent). Errors fail closed unless the settings say otherwise: `unreachable_fallback`
 * for an API that cannot be reached, `fail_on_error` for any other.
 */
export class GuardrailApi {
  private readonly url: URL;

  constructor(
    private readonly settings: GuardrailApiSettings,
    private readonly client: UpstreamClient,
  ) {
    this.url = new URL(PATH.slice(1), settings.apiBase.endsWith('/') ? settings.apiBase : `${settings.apiBase}/`);
  }

  async check(call: GuardrailApiCall): Promise<GuardrailApiVerdict> {
    let status: number | undefined;
    let document: unknown;
    try {
      const answer = await this.client.send({
        url: this.url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...this.settings.headers,
          ...(this.settings.apiKey ? { 'x-api-key': this.settings.apiKey } : {}),
        },
        body: JSON.stringify(this.body(call)),
        timeoutMs: this.settings.timeoutMs,
      });
      status = answer.statusCode;
      const text = (await answer.body.all(MAX_ANSWER_BYTES, () => new Error('the answer is too large'))).toString('utf8');
      if (status < 200 || status >= 300) return this.failed(UNREACHABLE_STATUSES.has(status), `it answered ${status}`);
      document = JSON.parse(text);
    } catch (error) {
      if (status === undefined) return this.failed(true, isUpstreamTimeout(error) ? 'it did not answer in time' : 'it could not be reached');
      return this.failed(false, 'its answer is not JSON');
    }
    return this.verdict(document, call.texts.length);
  }

  private body(call: GuardrailApiCall): Record<string, unknown> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(call.requestHeaders ?? {})) {
      if (value === undefined || name === 'authorization' || name === 'x-api-key') continue;
      headers[name] = this.settings.extraHeaders.includes(name) ? String(value) : '[present]';
    }
    return {
      texts: call.texts,
      request_data: call.requestData,
      ...(call.requestHeaders ? { request_headers: headers } : {}),
      input_type: call.inputType,
      ...(call.callId ? { litellm_call_id: call.callId } : {}),
      additional_provider_specific_params: this.settings.params,
    };
  }

  private verdict(document: unknown, sent: number): GuardrailApiVerdict {
    const answer = typeof document === 'object' && document !== null ? (document as Record<string, unknown>) : {};
    const action = answer['action'];
    if (action === 'NONE') return { action };
    if (action === 'BLOCKED') return { action, reason: typeof answer['blocked_reason'] === 'string' ? answer['blocked_reason'] : 'blocked' };
    if (action === 'GUARDRAIL_INTERVENED') {
      const texts = answer['texts'];
      if (texts === undefined) return { action };
      if (Array.isArray(texts) && texts.length === sent && texts.every((text) => typeof text === 'string')) return { action, texts: texts as string[] };
      return this.failed(false, `it rewrote ${Array.isArray(texts) ? texts.length : 'no list of'} texts for the ${sent} it was sent`);
    }
    return this.failed(false, 'its answer has no action of the contract (BLOCKED, NONE, GUARDRAIL_INTERVENED)');
  }

  private failed(unreachable: boolean, why: string): GuardrailApiVerdict {
    const open = unreachable ? this.settings.unreachableFallback === 'fail_open' || !this.settings.failOnError : !this.settings.failOnError;
    if (open) return { action: 'NONE', failedOpen: why };
    throw new GuardrailApiError(why);
  }
}
