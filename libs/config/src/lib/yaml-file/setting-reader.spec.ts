import { SettingReader } from './setting-reader';
import { UnsetVariable } from './yaml-config-file';

/** What `read` returns for `value` at `at`, and the problem lines it reported. */
function reading<T>(read: (reader: SettingReader, value: unknown) => T, value: unknown, options = {}): { value: T; problems: string[] } {
  const problems: string[] = [];
  const reader = new SettingReader((path, message) => problems.push(`${path}: ${message}`), options);
  return { value: read(reader, value), problems };
}

const unset = new UnsetVariable('NOT_SET');

describe('the typed readers of config values (one problem line each)', () => {
  it.each([
    { kind: 'string', read: (r: SettingReader, v: unknown) => r.string(v, 'a'), value: 'x', expected: 'x', problems: [] },
    { kind: 'string', read: (r: SettingReader, v: unknown) => r.string(v, 'a'), value: '  ', expected: undefined, problems: ['a: must be a non-empty string'] },
    { kind: 'required string', read: (r: SettingReader, v: unknown) => r.string(v, 'a', true), value: undefined, expected: undefined, problems: ['a: is required'] },
    {
      kind: 'string',
      read: (r: SettingReader, v: unknown) => r.string(v, 'a'),
      value: unset,
      expected: undefined,
      problems: ['a: names the environment variable NOT_SET, which is not set'],
    },
    { kind: 'number', read: (r: SettingReader, v: unknown) => r.number(v, 'n'), value: '2.5', expected: 2.5, problems: [] },
    { kind: 'number', read: (r: SettingReader, v: unknown) => r.number(v, 'n'), value: 'many', expected: undefined, problems: ['n: must be a number'] },
    { kind: 'positive', read: (r: SettingReader, v: unknown) => r.positive(v, 'n'), value: 0, expected: undefined, problems: ['n: must be greater than 0'] },
    { kind: 'count', read: (r: SettingReader, v: unknown) => r.count(v, 'n'), value: 1.5, expected: undefined, problems: ['n: must be a whole number, 0 or more'] },
    { kind: 'boolean', read: (r: SettingReader, v: unknown) => r.boolean(v, 'b'), value: 'yes', expected: undefined, problems: ['b: must be true or false'] },
    { kind: 'one of', read: (r: SettingReader, v: unknown) => r.oneOf(v, 'o', ['a', 'b']), value: 'c', expected: undefined, problems: ['o: must be one of a, b, got "c"'] },
    { kind: 'url', read: (r: SettingReader, v: unknown) => r.url(v, 'u'), value: 'https://x.example/v1', expected: 'https://x.example/v1', problems: [] },
    // A URL may carry credentials: it is never quoted.
    { kind: 'url', read: (r: SettingReader, v: unknown) => r.url(v, 'u'), value: 'ftp://user:secret@x', expected: undefined, problems: ['u: must be an http(s) URL'] },
    {
      kind: 'mapping',
      read: (r: SettingReader, v: unknown) => r.object(v, 'm', ['model_name']),
      value: { model_nam: 1 },
      // Read as meant, so a "model_name is required" does not follow from the same typo.
      expected: { model_name: 1 },
      problems: ['m.model_nam: unknown key (did you mean model_name?)'],
    },
    { kind: 'mapping', read: (r: SettingReader, v: unknown) => r.object(v, 'm'), value: [], expected: undefined, problems: ['m: must be a mapping'] },
    { kind: 'list', read: (r: SettingReader, v: unknown) => r.list(v, 'l'), value: 'x', expected: [], problems: ['l: must be a list'] },
  ])('a $kind: $value', ({ read, value, expected, problems }) => {
    expect(reading(read as (reader: SettingReader, value: unknown) => unknown, value)).toEqual({ value: expected, problems });
  });

  it('reads a number as text only where the service says so (LiteLLM: api_version: 2024-10-21)', () => {
    expect(reading((r, v) => r.string(v, 'a'), 20241021)).toEqual({ value: undefined, problems: ['a: must be a non-empty string'] });
    expect(reading((r, v) => r.string(v, 'a'), 20241021, { numbersAsText: true })).toEqual({ value: '20241021', problems: [] });
  });
});
