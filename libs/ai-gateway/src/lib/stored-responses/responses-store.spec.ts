import { jsonb } from './responses-store';

describe('stored responses as jsonb', () => {
  it('stores a NUL character or a lone surrogate of a prompt as U+FFFD, and leaves an escaped backslash before "u0000" as it was', () => {
    const stored = JSON.parse(jsonb({ input: 'a\u0000\u0000b', text: '\\u0000', both: '\\\u0000', lone: 'x\udfff', pair: '😀' })) as Record<string, string>;
    expect(stored).toEqual({ input: 'a\ufffd\ufffdb', text: '\\u0000', both: '\\\ufffd', lone: 'x\ufffd', pair: '😀' });
  });
});
