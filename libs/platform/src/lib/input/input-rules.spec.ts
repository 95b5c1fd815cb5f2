import { excerpt, excerptList, inputProblem, MAX_JSON_DEPTH, nestingProblem, textProblem } from './input-rules';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { a: value };
  return value;
}

describe('input rules', () => {
  it('refuse NUL and lone surrogates, and accept every other character, astral ones included', () => {
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    expect(textProblem('x\ud800')).toMatch(/lone UTF-16 surrogate \(U\+D800\)/);
    expect(textProblem('\udc00y')).toMatch(/U\+DC00/);
    expect(textProblem('tab\t, newline\n, emoji 🌳, CJK 木, RTL \u202e')).toBeUndefined();
  });

  it('name the first bad value by its path, in keys as in values', () => {
    expect(inputProblem({ name: 'ok', metadata: { team: ['a', 'b\u0000'] } }, 'body')).toEqual({
      field: 'body.metadata.team[1]',
      problem: 'must not contain the NUL character (U+0000)',
    });
    expect(inputProblem({ metadata: { 'bad\ud800key': 1 } }, 'body')?.field).toBe('body.metadata.bad\\ud800key');
  });

  it('refuse a __proto__ key, which building a DTO would drop silently', () => {
    expect(inputProblem(JSON.parse('{"projects":{"alpha":[],"__proto__":["ai-gateway"]}}'), 'body')).toEqual({
      field: 'body.projects.__proto__',
      problem: 'is a key no Arbor API accepts',
    });
    expect(inputProblem({ constructor: 'fine', prototype: 'fine too' }, 'body')).toBeUndefined();
  });

  it(`accept ${MAX_JSON_DEPTH} levels of nesting and refuse one more, without recursing past the limit`, () => {
    expect(inputProblem(nested(MAX_JSON_DEPTH), 'body')).toBeUndefined();
    expect(inputProblem(nested(MAX_JSON_DEPTH + 1), 'body')?.problem).toMatch(/nested too deeply/);
    // 100 000 levels would overflow the stack of a walk without a limit.
    expect(inputProblem(nested(100_000), 'body')?.problem).toMatch(/nested too deeply/);
  });

  it('quote at most a short excerpt of a client value, with control characters escaped', () => {
    const quoted = excerpt(`${'m'.repeat(10_000)}`);
    expect(quoted.length).toBeLessThanOrEqual(65);
    expect(quoted.endsWith('…')).toBe(true);
    expect(excerpt('a\u0000b\u001b[31m')).toBe('a\\u0000b\\u001b[31m');
  });

  it('name a field under a megabyte key by an excerpt of that key, in text and nesting checks alike', () => {
    const key = 'k'.repeat(1_000_000);
    expect(inputProblem({ outer: { [key]: 'a\u0000' } }, 'body')?.field).toBe(`body.outer.${'k'.repeat(64)}…`);
    expect(nestingProblem({ [key]: nested(MAX_JSON_DEPTH + 1) }, 'body')?.field.length).toBeLessThan(1_000);
  });

  it('quote at most 20 values of a list, each an excerpt, and count the rest', () => {
    const { quoted, more } = excerptList(Array.from({ length: 500 }, (_, index) => `${index}${'v'.repeat(1000)}`));
    expect(quoted).toHaveLength(20);
    expect(quoted.every((value) => value.length <= 65)).toBe(true);
    expect(more).toBe(480);
    expect(excerptList(['a', 'b'])).toEqual({ quoted: ['a', 'b'], more: 0 });
  });
});
