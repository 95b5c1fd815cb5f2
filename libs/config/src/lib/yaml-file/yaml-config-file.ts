import { readFileSync } from 'node:fs';
import path from 'node:path';
import { closest, distance } from 'fastest-levenshtein';
import { parse } from 'yaml';
import type { z } from 'zod';
import { ConfigError, ConfigProblem } from '../config-error';
import { Env } from '../load-config';
import { pyYamlTags } from './yaml-1-1';

/**
 * Where the file wrote `os.environ/NAME` and NAME is not set. Left in the document rather than
 * reported at once: only a value the service reads is a problem (LiteLLM files carry settings
 * this gateway ignores, which may name variables nobody set here).
 */
export class UnsetVariable {
  constructor(readonly name: string) {}

  get message(): string {
    return `names the environment variable ${this.name}, which is not set`;
  }
}

export interface YamlConfigOptions {
  /** The environment variable naming the file (`AIGW_CONFIG`): the first word of every problem line. */
  variable: string;
  /** Where `os.environ/NAME` is read (and, with `litellm`, `environment_variables` written); process.env by default. */
  env?: Env;
  /**
   * LiteLLM's reading of a config file: top-level `include:` files merged in (lists extended,
   * other keys set), then `environment_variables` set in `env` before anything else is read.
   */
  litellm?: boolean;
  /** Directory `include:` paths are relative to (the file's own when read with readYamlConfigFile). */
  baseDir?: string;
}

const ENV_REFERENCE = /^os\.environ\/(.+)$/;

/** Reads the YAML file a variable names; ConfigError when it cannot be read or parsed. See parseYamlConfig. */
export function readYamlConfigFile(file: string, options: YamlConfigOptions): Record<string, unknown> {
  return parseYamlConfig(readText(file, options.variable), { ...options, baseDir: options.baseDir ?? path.dirname(file) });
}

/**
 * The one reader of the gateways' YAML files: YAML 1.1 scalars as PyYAML reads them, LiteLLM's
 * `include:` and `environment_variables` when asked, and every `os.environ/NAME` string replaced by
 * the variable's value (or an UnsetVariable). An empty file is an empty mapping.
 */
export function parseYamlConfig(text: string, options: YamlConfigOptions): Record<string, unknown> {
  const env = options.env ?? process.env;
  let root = parseDocument(text, options.variable);
  if (options.litellm) {
    root = withIncludes(root, options);
    applyEnvironmentVariables(root['environment_variables'], env, options.variable);
  }
  return resolveReferences(root, env) as Record<string, unknown>;
}

function readText(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ variable, message: `cannot read ${file}: ${(error as Error).message}` }]);
  }
}

function parseDocument(text: string, variable: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = parse(text, { version: '1.1', customTags: pyYamlTags, uniqueKeys: false, maxAliasCount: 1000 });
  } catch (error) {
    throw new ConfigError([{ variable, message: `not valid YAML: ${(error as Error).message.split('\n')[0]}` }]);
  }
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document)) throw new ConfigError([{ variable, message: '(top level): must be a mapping' }]);
  return document as Record<string, unknown>;
}

/** LiteLLM's `include: [file, …]`: each file's lists extend the parent's, its other keys are set. */
function withIncludes(root: Record<string, unknown>, options: YamlConfigOptions): Record<string, unknown> {
  const includes = root['include'];
  if (includes === undefined || includes === null) return root;
  const files = typeof includes === 'string' ? [includes] : includes;
  if (!Array.isArray(files) || !files.every((file) => typeof file === 'string' && file !== '')) {
    throw new ConfigError([{ variable: options.variable, message: 'include: must be a list of file paths' }]);
  }
  const merged: Record<string, unknown> = { ...root };
  delete merged['include'];
  for (const file of files as string[]) {
    const resolved = path.resolve(options.baseDir ?? process.cwd(), file);
    const included = parseDocument(readText(resolved, options.variable), options.variable);
    for (const [key, value] of Object.entries(included)) {
      const existing = merged[key];
      merged[key] = Array.isArray(existing) && Array.isArray(value) ? [...existing, ...value] : value;
    }
  }
  return merged;
}

/** As LiteLLM does: every entry set in the environment (Python's str() of the value) before the rest is read. */
function applyEnvironmentVariables(section: unknown, env: Env, variable: string): void {
  if (section === undefined || section === null) return;
  if (typeof section !== 'object' || Array.isArray(section)) {
    throw new ConfigError([{ variable, message: 'environment_variables: must be a mapping of variable names to values' }]);
  }
  for (const [name, value] of Object.entries(section as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    env[name] = typeof value === 'boolean' ? (value ? 'True' : 'False') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

function resolveReferences(value: unknown, env: Env): unknown {
  if (typeof value === 'string') {
    const name = ENV_REFERENCE.exec(value)?.[1];
    if (name === undefined) return value;
    const resolved = env[name];
    return resolved === undefined || resolved === '' ? new UnsetVariable(name) : resolved;
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, env));
  if (typeof value === 'object' && value !== null && !(value instanceof UnsetVariable)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, env)]));
  }
  return value;
}

/** The known key nearest a misspelt one, when it is near enough to be what was meant. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const candidate = closest(key, [...known]);
  return distance(key, candidate) <= Math.max(2, Math.floor(key.length / 3)) ? candidate : undefined;
}

/** `unknown key`, with the nearest known one suggested (or the list of known keys when none is near). */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const near = nearestKey(key, known);
  return near !== undefined ? `unknown key (did you mean ${near}?)` : `unknown key (known: ${known.join(', ')})`;
}

/**
 * `record` as it was meant: each unknown key whose nearest known key is not there itself is read as
 * that key. Its misspelling is reported once (unknownKeyMessage); reading on as meant keeps what
 * follows from it (a required key "missing", an entry dropped, a reference to it "unknown") from
 * being reported as problems of their own.
 */
export function asMeant(record: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  const meant: Record<string, unknown> = { ...record };
  for (const key of Object.keys(record)) {
    if (known.includes(key)) continue;
    const near = nearestKey(key, known);
    if (near === undefined || near in meant) continue;
    meant[near] = record[key];
    delete meant[key];
  }
  return meant;
}

/** zod's issues as problem lines of the file's variable: `<path>: <message>`, under `prefix`. */
export function zodProblems(error: z.ZodError, variable: string, prefix: string): ConfigProblem[] {
  return error.issues.map((issue) => {
    const at = [prefix, ...issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))].join('').replace(/^\./, '');
    return { variable, message: `${at}: ${issue.message}` };
  });
}
