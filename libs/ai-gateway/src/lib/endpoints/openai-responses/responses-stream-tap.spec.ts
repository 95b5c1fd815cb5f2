import { ResponsesStreamTap } from './responses-stream-tap';

const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

describe('the Responses stream tap', () => {
  it('passes every event on unchanged and learns the usage of response.completed, whatever the chunking', () => {
    const stream =
      event('response.created', { response: { usage: null }, sequence_number: 0 }) +
      event('response.output_text.delta', { delta: 'a "usage" in text', sequence_number: 1 }) +
      event('response.completed', {
        response: { usage: { input_tokens: 12, input_tokens_details: { cached_tokens: 4 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 3 } } },
        sequence_number: 2,
      });
    const tap = new ResponsesStreamTap();
    let passed = '';
    for (let at = 0; at < stream.length; at += 7) passed += tap.push(Buffer.from(stream.slice(at, at + 7)));
    passed += tap.end();
    expect(passed).toBe(stream);
    expect(tap.usage).toEqual({ promptTokens: 12, completionTokens: 9, cachedTokens: 4, reasoningTokens: 3 });
    expect(tap.error).toBeUndefined();
  });

  it("names the response and the one before it by the gateway's ids in every event, whatever the chunking, the final document as the upstream made it", () => {
    const upstream = { id: 'resp_up2', previous_response_id: 'resp_up1', usage: null };
    const stream =
      event('response.created', { response: upstream, sequence_number: 0 }) +
      event('response.output_text.delta', { delta: 'about resp_up2', sequence_number: 1 }) +
      event('response.completed', { response: { ...upstream, usage: { input_tokens: 1, output_tokens: 1 } }, sequence_number: 2 });
    const tap = new ResponsesStreamTap(true, { id: 'resp_gw2', earlier: new Map([['resp_up1', 'resp_gw1']]) });
    let passed = '';
    for (let at = 0; at < stream.length; at += 5) passed += tap.push(Buffer.from(stream.slice(at, at + 5)));
    passed += tap.end();
    expect(passed).toBe(stream.replaceAll('"resp_up2"', '"resp_gw2"').replaceAll('"resp_up1"', '"resp_gw1"'));
    // Text that merely mentions an id is not an id.
    expect(passed).toContain('about resp_up2');
    expect(tap.started).toMatchObject({ id: 'resp_gw2', previous_response_id: 'resp_gw1' });
    expect(tap.final).toMatchObject({ id: 'resp_up2' });
  });

  it('notices an error event and a failed response', () => {
    const errored = new ResponsesStreamTap();
    errored.push(event('error', { code: 'server_error', message: 'boom', param: null, sequence_number: 5 }));
    expect(errored.error?.message).toBe('boom');
    const failed = new ResponsesStreamTap();
    failed.push(event('response.failed', { response: { error: { code: 'rate_limit_exceeded', message: 'slow down' }, usage: { input_tokens: 3, output_tokens: 0 } } }));
    expect(failed.error?.code).toBe('rate_limit_exceeded');
    expect(failed.usage).toMatchObject({ promptTokens: 3, completionTokens: 0 });
  });
});
