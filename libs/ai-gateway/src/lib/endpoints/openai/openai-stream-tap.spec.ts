import { StreamUsageTap } from './openai-stream-tap';

const chunk = (content: string) => `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"${content}"}}],"usage":null}\n\n`;
const usageChunk = 'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":2}}}\n\n';
const done = 'data: [DONE]\n\n';

const usageChunkWithCost = (cost: number) =>
  `data: {"id":"c1","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":2},"cost":${cost}}}\n\n`;

/** The stream as the client gets it, the call having cost `cost`. */
function run(tap: StreamUsageTap, pieces: string[], cost = 0.25): string {
  return pieces.map((piece) => tap.push(Buffer.from(piece))).join('') + tap.end() + tap.release(cost);
}

describe('usage in streamed answers', () => {
  it('learns the usage and removes it when the client did not ask for it', () => {
    const tap = new StreamUsageTap(false);
    const out = run(tap, [chunk('Hel'), chunk('lo') + usageChunk, done]);
    expect(out).toBe('data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n' + 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"lo"}}]}\n\n' + done);
    expect(tap.usage).toEqual({ promptTokens: 7, completionTokens: 5, cachedTokens: 2, reasoningTokens: 0 });
  });

  it("passes every byte through when the client asked for usage, the call's cost added to the usage chunk", () => {
    const tap = new StreamUsageTap(true);
    const input = [chunk('Hel'), chunk('lo'), usageChunk, done];
    expect(run(tap, input, 0.000123)).toBe(chunk('Hel') + chunk('lo') + usageChunkWithCost(0.000123) + done);
    expect(tap.usage?.promptTokens).toBe(7);
  });

  it('holds the usage chunk and what follows it until the cost is known, whichever read brings them', () => {
    const tap = new StreamUsageTap(true);
    expect(tap.push(chunk('Hi') + usageChunk)).toBe(chunk('Hi'));
    expect(tap.push(done)).toBe('');
    expect(tap.end()).toBe('');
    expect(tap.release(2)).toBe(usageChunkWithCost(2) + done);
  });

  it('holds back only the incomplete part of an event split across reads, even inside a character', () => {
    const tap = new StreamUsageTap(true);
    const whole = Buffer.from(chunk('héllo') + usageChunk);
    const split = whole.indexOf(Buffer.from('é')) + 1; // between the two bytes of é
    const first = tap.push(whole.subarray(0, split));
    expect(first).toBe('');
    expect(tap.push(whole.subarray(split)) + tap.end() + tap.release(1)).toBe(chunk('héllo') + usageChunkWithCost(1));
    expect(tap.usage?.completionTokens).toBe(5);
  });

  it('cuts usage out of a content chunk that carries it (some compatible servers do)', () => {
    const tap = new StreamUsageTap(false);
    const out = run(tap, ['data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}\r\n\r\n']);
    expect(out).toBe('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\r\n\r\n');
    expect(tap.usage?.promptTokens).toBe(3);
  });
});

describe('errors in streamed answers', () => {
  it('notices an error event the upstream sent and passes it on unchanged', () => {
    const tap = new StreamUsageTap(false);
    const error = 'data: {"error":{"message":"overloaded","type":"server_error","param":null,"code":null}}\n\n';
    expect(run(tap, [chunk('Hel'), error])).toBe('data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n' + error);
    expect(tap.error).toMatchObject({ message: 'overloaded', type: 'server_error', code: 'server_error' });
  });

  it('does not mistake content mentioning "error" for an error event', () => {
    const tap = new StreamUsageTap(true);
    run(tap, ['data: {"choices":[{"index":0,"delta":{"content":"the \\"error\\" key"}}]}\n\n']);
    expect(tap.error).toBeUndefined();
  });
});
