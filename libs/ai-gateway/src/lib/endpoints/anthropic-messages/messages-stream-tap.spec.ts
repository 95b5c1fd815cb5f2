import { ProviderError } from '@arbor/provider-adapters';
import { messagesErrorBody } from './messages-errors';
import { MessagesStreamTap } from './messages-stream-tap';

const event = (data: Record<string, unknown>) => `event: ${String(data['type'])}\ndata: ${JSON.stringify(data)}\n\n`;
const start = event({
  type: 'message_start',
  message: {
    id: 'msg_1',
    usage: {
      input_tokens: 100,
      cache_creation_input_tokens: 1000,
      cache_read_input_tokens: 2000,
      cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 600 },
      output_tokens: 1,
    },
  },
});
const text = event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'the "usage" of "type":"error"' } });
const delta = event({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 20 } });

function run(tap: MessagesStreamTap, stream: string, piece = 5): string {
  let out = '';
  for (let at = 0; at < stream.length; at += piece) out += tap.push(stream.slice(at, at + piece));
  return out + tap.end();
}

describe('the Anthropic Messages stream tap', () => {
  it('passes every byte on and learns usage from message_start completed by message_delta', () => {
    const tap = new MessagesStreamTap();
    const stream = start + text + delta + event({ type: 'message_stop' });
    expect(run(tap, stream)).toBe(stream);
    expect(tap.usage).toEqual({ promptTokens: 3100, completionTokens: 20, cachedTokens: 2000, cacheWriteTokens: 1000, oneHourCacheWriteTokens: 600, reasoningTokens: 0 });
    expect(tap.error).toBeUndefined();
  });

  it('knows no usage of a stream cut before message_delta, so that the call is estimated instead', () => {
    const tap = new MessagesStreamTap();
    run(tap, start + text);
    expect(tap.usage).toBeUndefined();
  });

  it('notices an error event the upstream sent, with the status of its type', () => {
    const tap = new MessagesStreamTap();
    run(tap, start + text + event({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    expect(tap.error).toMatchObject({ status: 529, type: 'overloaded_error', message: 'Overloaded' });
  });
});

describe('the error envelope of Anthropic-format calls', () => {
  it.each([
    [new ProviderError(429, 'rate_limit_exceeded', 'slow down', 'rate_limit_exceeded'), 'rate_limit_error'],
    [new ProviderError(413, 'invalid_request_error', 'too big', 'request_too_large'), 'request_too_large'],
    [new ProviderError(403, 'billing_error', 'pay', 'billing_error'), 'billing_error'],
    [new ProviderError(503, 'server_error', 'busy'), 'overloaded_error'],
    [new ProviderError(502, 'api_connection_error', 'gone', 'upstream_unreachable'), 'api_error'],
    [new ProviderError(415, 'invalid_request_error', 'gzip'), 'invalid_request_error'],
  ])("is in both vendors' envelopes at once: %s as %s", (error, type) => {
    expect(messagesErrorBody(error)).toEqual({ type: 'error', error: { type, message: error.message, param: error.param, code: error.code } });
  });
});
