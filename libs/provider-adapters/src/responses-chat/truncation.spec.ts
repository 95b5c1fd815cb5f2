import { ProviderError } from '../lib/provider-error';
import { truncatedForContext } from './truncation';

const tooLong = (used: number, limit: number) =>
  new ProviderError(400, 'invalid_request_error', `prompt is too long: ${used} tokens > ${limit} maximum`, 'context_length_exceeded');
const say = (role: string, text: string) => ({ type: 'message', role, content: text });

describe('truncation: auto for a bridged upstream', () => {
  const conversation = [
    say('user', 'a'.repeat(400)),
    { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c1', output: 'b'.repeat(400) },
    say('assistant', 'c'.repeat(100)),
    say('user', 'latest question'),
  ];

  it('drops the oldest items, never leaving a tool output whose call went first', () => {
    const shorter = truncatedForContext({ truncation: 'auto', input: conversation }, tooLong(1000, 800));
    expect(shorter?.['input']).toEqual([say('user', 'latest question')]);
  });

  it('keeps as much of the conversation as the sizes in the error allow', () => {
    const input = [say('user', 'x'.repeat(100)), say('user', 'y'.repeat(100)), say('user', 'z'.repeat(100))];
    const shorter = truncatedForContext({ truncation: 'auto', input }, tooLong(300, 250));
    expect(shorter?.['input']).toEqual(input.slice(1));
  });

  it('leaves the request alone without truncation: auto, or with nothing before the latest turn', () => {
    expect(truncatedForContext({ input: conversation }, tooLong(1000, 800))).toBeUndefined();
    expect(truncatedForContext({ truncation: 'disabled', input: conversation }, tooLong(1000, 800))).toBeUndefined();
    expect(truncatedForContext({ truncation: 'auto', input: [say('user', 'only')] }, tooLong(1000, 800))).toBeUndefined();
    expect(truncatedForContext({ truncation: 'auto', input: conversation.slice(1) }, tooLong(1000, 800))).toEqual({ truncation: 'auto', input: [say('user', 'latest question')] });
  });
});
