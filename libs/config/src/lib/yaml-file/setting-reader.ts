import { asMeant, UnsetVariable, unknownKeyMessage } from './yaml-config-file';

/** Where a reader reports a problem: the value's path in the file, and what is wrong with it. */
export type SettingProblem = (path: string, message: string) => void;

export interface SettingReaderOptions {
  /**
   * Numbers read as text where text is asked for: PyYAML reads `api_version: 2024-10-21` unquoted
   * as a date, which LiteLLM passes on as text; a number likewise.
   */
  numbersAsText?: boolean;
}

/**
 * The typed reading of a YAML config file's values (the AI gateway's and the MCP gateway's): each
 * method returns the value as its type, or undefined after reporting one problem line at its path,
 * so that a bad file stops the start with every problem listed. A value that names an unset
 * `os.environ/NAME` is reported as such. Services add their own readers by extending it.
 */
export class SettingReader {
  constructor(
    protected readonly problem: SettingProblem,
    private readonly options: SettingReaderOptions = {},
  ) {}

  /**
   * A mapping; with `allowedKeys`, each other key is reported (with the key a typo meant), and a
   * misspelt key is returned as the key it meant, so nothing that follows from the typo is reported again.
   */
  object(value: unknown, path: string, allowedKeys?: readonly string[]): Record<string, unknown> | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof UnsetVariable) {
      this.problem(path, 'must be a mapping');
      return undefined;
    }
    const record = value as Record<string, unknown>;
    if (allowedKeys) {
      for (const key of Object.keys(record)) {
        if (!allowedKeys.includes(key)) this.problem(path === '(top level)' ? key : `${path}.${key}`, unknownKeyMessage(key, allowedKeys));
      }
      return asMeant(record, allowedKeys);
    }
    return record;
  }

  /** A list; none is an empty one. */
  list(value: unknown, path: string): unknown[] {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    this.problem(path, 'must be a list');
    return [];
  }

  string(value: unknown, path: string, required = false): string | undefined {
    if (value instanceof UnsetVariable) {
      this.problem(path, value.message);
      return undefined;
    }
    if (value === undefined || value === null) {
      if (required) this.problem(path, 'is required');
      return undefined;
    }
    if (typeof value === 'number' && this.options.numbersAsText) return String(value);
    if (typeof value !== 'string' || value.trim() === '') {
      this.problem(path, 'must be a non-empty string');
      return undefined;
    }
    return value;
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    this.problem(path, value instanceof UnsetVariable ? value.message : 'must be true or false');
    return undefined;
  }

  /** A number, also written as text (`os.environ/NAME` values are). */
  number(value: unknown, path: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (value instanceof UnsetVariable) {
      this.problem(path, value.message);
      return undefined;
    }
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && Number.isFinite(number)) return number;
    this.problem(path, 'must be a number');
    return undefined;
  }

  positive(value: unknown, path: string): number | undefined {
    const number = this.number(value, path);
    if (number === undefined || number > 0) return number;
    this.problem(path, 'must be greater than 0');
    return undefined;
  }

  count(value: unknown, path: string): number | undefined {
    const number = this.number(value, path);
    if (number === undefined || (Number.isInteger(number) && number >= 0)) return number;
    this.problem(path, 'must be a whole number, 0 or more');
    return undefined;
  }

  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
    const text = this.string(value, path);
    if (text === undefined) return undefined;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    this.problem(path, `must be one of ${allowed.join(', ')}, got "${text}"`);
    return undefined;
  }

  /** Text matching `pattern`, which `rule` describes (`"a-b" must be lower-case letters…`). */
  pattern(value: unknown, path: string, pattern: RegExp, rule: string): string | undefined {
    const text = this.string(value, path, true);
    if (text === undefined) return undefined;
    if (pattern.test(text)) return text;
    this.problem(path, `"${text}" must be ${rule}`);
    return undefined;
  }

  /** An http(s) URL, not quoted in the problem (a URL may carry credentials). */
  url(value: unknown, path: string, required = false): string | undefined {
    const text = this.string(value, path, required);
    if (text === undefined) return undefined;
    if (parsedUrl(text)) return text;
    this.problem(path, 'must be an http(s) URL');
    return undefined;
  }
}

/** `text` as an http(s) URL, or undefined. */
export function parsedUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}
