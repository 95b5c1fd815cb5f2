import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../config-error';
import { nearestKey, parseYamlConfig, readYamlConfigFile, UnsetVariable } from './yaml-config-file';

const VARIABLE = 'TEST_CONFIG';

describe("the gateways' YAML reader", () => {
  it("reads YAML 1.1 scalars as LiteLLM's parser (PyYAML) does", () => {
    const document = parseYamlConfig(
      'tpm: 80_000\nrpm: 1_000.5\nhex: 0x1F\noctal: 010\ncache: True\nyes_: yes\noff_: off\nn: 2\ny: keep\nexp: 1e3\nexp_signed: 1.5e+3\nday: 2024-01-01\n',
      { variable: VARIABLE, env: {} },
    );
    expect(document).toEqual({
      tpm: 80000,
      rpm: 1000.5,
      hex: 31,
      octal: 8,
      cache: true,
      yes_: true,
      off_: false,
      // PyYAML reads neither `n`/`y` as booleans nor `1e3` as a number, nor dates as anything but text here.
      n: 2,
      y: 'keep',
      exp: '1e3',
      exp_signed: 1500,
      day: '2024-01-01',
    });
  });

  it('resolves os.environ/NAME anywhere a value stands, leaving an UnsetVariable where the variable is not set', () => {
    const document = parseYamlConfig('a: os.environ/SET_ONE\nlist: [os.environ/SET_ONE, plain]\nnested: { b: os.environ/NOT_SET }\n', {
      variable: VARIABLE,
      env: { SET_ONE: 'value' },
    });
    expect(document['a']).toBe('value');
    expect(document['list']).toEqual(['value', 'plain']);
    const unset = (document['nested'] as Record<string, unknown>)['b'];
    expect(unset).toBeInstanceOf(UnsetVariable);
    expect((unset as UnsetVariable).message).toBe('names the environment variable NOT_SET, which is not set');
  });

  it('applies environment_variables before the rest is read, and merges include: files as LiteLLM does', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'yaml-config-'));
    writeFileSync(path.join(dir, 'models.yaml'), 'model_list:\n  - model_name: included\nrouter_settings: { num_retries: 3 }\n');
    writeFileSync(
      path.join(dir, 'config.yaml'),
      'include: [models.yaml]\nenvironment_variables: { FROM_FILE: hello, PORT_NUMBER: 6329, FLAG: true }\nmodel_list:\n  - model_name: own\ngreeting: os.environ/FROM_FILE\n',
    );
    const env: Record<string, string | undefined> = {};
    const document = readYamlConfigFile(path.join(dir, 'config.yaml'), { variable: VARIABLE, env, litellm: true });
    expect(env).toEqual({ FROM_FILE: 'hello', PORT_NUMBER: '6329', FLAG: 'True' });
    expect(document['greeting']).toBe('hello');
    expect(document['model_list']).toEqual([{ model_name: 'own' }, { model_name: 'included' }]);
    expect(document['router_settings']).toEqual({ num_retries: 3 });
    expect(document['include']).toBeUndefined();
  });

  it('names the variable on a file it cannot read, a document that is not YAML, and a missing include', () => {
    const lines = (run: () => unknown): string[] => {
      try {
        run();
      } catch (error) {
        if (error instanceof ConfigError) return error.lines();
        throw error;
      }
      return [];
    };
    expect(lines(() => readYamlConfigFile('/nonexistent/file.yaml', { variable: VARIABLE }))[0]).toMatch(/^TEST_CONFIG: cannot read \/nonexistent\/file\.yaml/);
    expect(lines(() => parseYamlConfig('a: [', { variable: VARIABLE }))[0]).toMatch(/^TEST_CONFIG: not valid YAML/);
    expect(lines(() => parseYamlConfig('include: [missing.yaml]', { variable: VARIABLE, litellm: true, baseDir: '/nonexistent' }))[0]).toMatch(
      /^TEST_CONFIG: cannot read \/nonexistent\/missing\.yaml/,
    );
  });

  it('suggests the nearest known key only when it is near', () => {
    expect(nearestKey('drop_param', ['drop_params', 'cache'])).toBe('drop_params');
    expect(nearestKey('something_else', ['drop_params', 'cache'])).toBeUndefined();
  });
});
