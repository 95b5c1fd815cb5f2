import { resolveLogFormat } from './root-logger';

describe('resolveLogFormat', () => {
  it('is json when stdout is not a terminal and text when it is, unless set', () => {
    expect(resolveLogFormat(undefined, false)).toBe('json');
    expect(resolveLogFormat(undefined, true)).toBe('text');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('text', false)).toBe('text');
  });
});
