import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, parseYamlConfig, SettingReader, type SettingProblem } from '@arbor/config';
import { PREBUILT_PATTERN_NAMES } from './prebuilt-patterns';

export type FilterAction = 'BLOCK' | 'MASK';

export interface FilterPattern {
  readonly type: 'prebuilt' | 'regex';
  /** The prebuilt pattern's name, or the name a regex pattern is given (its tag when masked). */
  readonly name: string;
  /** A regex pattern's source. */
  readonly regex?: string;
  readonly ignoreCase?: boolean;
  readonly action: FilterAction;
}

/** A content category (LiteLLM's `categories`): its keywords at or above the threshold, and the phrases inside which a keyword does not count. */
export interface FilterCategory {
  readonly name: string;
  readonly action: FilterAction;
  readonly keywords: readonly string[];
  readonly exceptions: readonly string[];
}

export interface ContentFilterSettings {
  readonly patterns: readonly FilterPattern[];
  readonly blockedWords: readonly { keyword: string; action: FilterAction }[];
  readonly categories: readonly FilterCategory[];
  /** How a masked pattern match reads; `{pattern_name}` is the pattern's name in capitals. */
  readonly patternRedactionFormat: string;
  readonly keywordRedactionTag: string;
}

/** When a guardrail runs (LiteLLM's `mode`): on model calls before, after or during the answer, on tool calls before or after. */
export type GuardrailMode = 'pre_call' | 'post_call' | 'during_call' | 'pre_mcp_call' | 'post_mcp_call';
const MODES: readonly GuardrailMode[] = ['pre_call', 'post_call', 'during_call', 'pre_mcp_call', 'post_mcp_call'];

/**
 * What a gateway runs of a `guardrails:` list: its modes, and why it refuses the others (each
 * gateway its own calls: a mode refused is one whose calls would otherwise pass unchecked).
 */
export interface GuardrailScope {
  readonly modes: readonly GuardrailMode[];
  /** The guardrails it runs; default: the content filter only. */
  readonly kinds?: readonly GuardrailKind[];
  /** For every mode not in `modes`: why it is refused here, and what to write instead. */
  readonly refused: Readonly<Record<string, string>>;
}

/** What every entry of the config's `guardrails:` list has, as LiteLLM reads it. */
interface GuardrailEntry {
  readonly name: string;
  /** When it runs; at least one, each one the gateway runs. */
  readonly modes: readonly GuardrailMode[];
  /** On every call, not only on those that name it. */
  readonly defaultOn: boolean;
}

/** LiteLLM's built-in content filter. */
export interface ContentFilterGuardrail extends GuardrailEntry {
  readonly kind: 'litellm_content_filter';
  readonly contentFilter: ContentFilterSettings;
}

/** OpenAI's moderation, as a model of the gateway's own list answers it. */
export interface ModerationSettings {
  /** The model_list alias that answers moderations. */
  readonly model: string;
  /** Only these categories refuse (default: any the model flags). */
  readonly categories?: readonly string[];
  /** A category refuses when its score reaches this (default: when the model flags it). */
  readonly threshold?: number;
}

export interface ModerationGuardrail extends GuardrailEntry {
  readonly kind: 'openai_moderation';
  readonly moderation: ModerationSettings;
}

/** LiteLLM's generic guardrail API: a checker of the operator's own behind one HTTP contract. */
export interface GuardrailApiSettings {
  /** Where `POST /beta/litellm_basic_guardrail_api` is answered. */
  readonly apiBase: string;
  /** Sent as `x-api-key`, as LiteLLM sends it. */
  readonly apiKey?: string;
  /** Sent with every request to the API. */
  readonly headers: Readonly<Record<string, string>>;
  /** The client's request headers whose values the API gets (the others are named `[present]`). */
  readonly extraHeaders: readonly string[];
  /** When the API cannot be reached (network errors, timeouts, 502/503/504): refuse the call, or let it go on. */
  readonly unreachableFallback: 'fail_closed' | 'fail_open';
  /** Any other error of the API (another status, an answer not of the contract): refuse the call (true), or let it go on. */
  readonly failOnError: boolean;
  readonly timeoutMs: number;
  /** `additional_provider_specific_params`, sent as they are. */
  readonly params: Readonly<Record<string, unknown>>;
}

export interface GuardrailApiGuardrail extends GuardrailEntry {
  readonly kind: 'generic_guardrail_api';
  readonly api: GuardrailApiSettings;
}

export type GuardrailDefinition = ContentFilterGuardrail | ModerationGuardrail | GuardrailApiGuardrail;

/** The guardrails the gateways run (LiteLLM's `guardrail:` values). */
export const SERVED_GUARDRAILS = ['litellm_content_filter', 'openai_moderation', 'generic_guardrail_api'] as const;
export type GuardrailKind = (typeof SERVED_GUARDRAILS)[number];
const CONTENT_FILTER_KEYS = ['patterns', 'blocked_words', 'blocked_words_file', 'pattern_redaction_format', 'keyword_redaction_tag'];
const MODERATION_KEYS = ['model', 'threshold'];
const API_KEYS = ['api_base', 'api_key', 'headers', 'extra_headers', 'unreachable_fallback', 'fail_on_error', 'timeout', 'additional_provider_specific_params'];
const DEFAULT_API_TIMEOUT_S = 10;
const ENTRY_KEYS = ['guardrail_name', 'litellm_params', 'guardrail_info', 'guardrail_id'];
const PARAM_KEYS = ['guardrail', 'mode', 'default_on', 'categories', ...new Set([...CONTENT_FILTER_KEYS, ...MODERATION_KEYS, ...API_KEYS])];
const PATTERN_KEYS = ['pattern_type', 'pattern_name', 'pattern', 'name', 'action'];
const WORD_KEYS = ['keyword', 'action', 'description'];
const CATEGORY_KEYS = ['category', 'enabled', 'action', 'severity_threshold', 'category_file'];
const CATEGORY_FILE_KEYS = ['category_name', 'description', 'default_action', 'keywords', 'exceptions'];
const CATEGORY_KEYWORD_KEYS = ['keyword', 'severity'];
const SEVERITIES = ['low', 'medium', 'high'] as const;
const WORDS_FILE_KEYS = ['blocked_words'];
const ACTIONS: readonly FilterAction[] = ['BLOCK', 'MASK'];

/** The config's top-level `guardrails:` list, checked: every problem reported at its path. */
export function readGuardrails(value: unknown, problem: SettingProblem, scope: GuardrailScope): GuardrailDefinition[] {
  const read = new SettingReader(problem);
  const guardrails: GuardrailDefinition[] = [];
  const names = new Set<string>();
  read.list(value, 'guardrails').forEach((raw, index) => {
    const at = `guardrails[${index}]`;
    const entry = read.object(raw, at, ENTRY_KEYS);
    if (!entry) return;
    const name = read.string(entry['guardrail_name'], `${at}.guardrail_name`, true);
    if (name !== undefined && names.has(name)) problem(`${at}.guardrail_name`, `"${name}" names another guardrail too`);
    if (name !== undefined) names.add(name);
    const params = read.object(entry['litellm_params'] ?? {}, `${at}.litellm_params`, PARAM_KEYS);
    if (!params) return;
    const kind = read.string(params['guardrail'], `${at}.litellm_params.guardrail`, true);
    const kinds: readonly string[] = scope.kinds ?? ['litellm_content_filter'];
    if (kind !== undefined && !kinds.includes(kind)) {
      problem(`${at}.litellm_params.guardrail`, `"${kind}" is not a guardrail the gateway runs (it runs ${kinds.join(', ')}), and calls would pass it unchecked`);
    }
    const modes = readModes(read, params['mode'], `${at}.litellm_params.mode`, problem, scope);
    const defaultOn = read.boolean(params['default_on'], `${at}.litellm_params.default_on`) ?? false;
    if (kind === 'generic_guardrail_api') {
      const api = readGuardrailApi(read, params, `${at}.litellm_params`, problem);
      if (name !== undefined && api && kinds.includes(kind)) guardrails.push({ name, kind, modes, defaultOn, api });
      return;
    }
    if (kind === 'openai_moderation') {
      const moderation = readModeration(read, params, `${at}.litellm_params`, problem);
      if (name !== undefined && moderation && kinds.includes(kind)) guardrails.push({ name, kind, modes, defaultOn, moderation });
      return;
    }
    for (const key of [...MODERATION_KEYS, ...API_KEYS]) if (params[key] !== undefined) problem(`${at}.litellm_params.${key}`, `is not a field of ${kind ?? 'this guardrail'}`);
    const contentFilter = readContentFilter(read, params, `${at}.litellm_params`, problem);
    if (name === undefined || kind !== 'litellm_content_filter') return;
    guardrails.push({ name, kind, modes, defaultOn, contentFilter });
  });
  return guardrails;
}

function readModes(read: SettingReader, value: unknown, at: string, problem: SettingProblem, scope: GuardrailScope): GuardrailMode[] {
  const listed = Array.isArray(value) ? value : [value ?? 'pre_call'];
  const modes: GuardrailMode[] = [];
  listed.forEach((mode, index) => {
    const here = Array.isArray(value) ? `${at}[${index}]` : at;
    const text = read.string(mode, here);
    if (text === undefined) return;
    if ((scope.modes as readonly string[]).includes(text)) {
      if (!modes.includes(text as GuardrailMode)) modes.push(text as GuardrailMode);
    } else if (text in scope.refused) problem(here, `refused: ${scope.refused[text]}`);
    else if (text === 'logging_only') problem(here, 'refused: logging_only (masking what is logged only) is not served; the gateways log no content');
    else problem(here, `must be one of ${MODES.join(', ')}, got "${text}"`);
  });
  if (Array.isArray(value) && listed.length === 0) problem(at, 'must name at least one mode');
  return modes;
}

function readGuardrailApi(read: SettingReader, params: Record<string, unknown>, at: string, problem: SettingProblem): GuardrailApiSettings | undefined {
  for (const key of [...CONTENT_FILTER_KEYS, ...MODERATION_KEYS, 'categories']) if (params[key] !== undefined) problem(`${at}.${key}`, 'is not a field of generic_guardrail_api');
  const apiBase = read.url(params['api_base'], `${at}.api_base`, true);
  const apiKey = read.string(params['api_key'], `${at}.api_key`);
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries(read.object(params['headers'] ?? {}, `${at}.headers`) ?? {})) {
    const text = read.string(value, `${at}.headers.${header}`, true);
    if (text !== undefined) headers[header.toLowerCase()] = text;
  }
  const extraHeaders = read.list(params['extra_headers'], `${at}.extra_headers`).flatMap((header, index) => {
    const text = read.string(header, `${at}.extra_headers[${index}]`, true);
    return text === undefined ? [] : [text.toLowerCase()];
  });
  const unreachableFallback = read.oneOf(params['unreachable_fallback'] ?? 'fail_closed', `${at}.unreachable_fallback`, ['fail_closed', 'fail_open'] as const);
  const failOnError = read.boolean(params['fail_on_error'], `${at}.fail_on_error`) ?? true;
  const timeoutS = read.positive(params['timeout'], `${at}.timeout`) ?? DEFAULT_API_TIMEOUT_S;
  const extra = read.object(params['additional_provider_specific_params'] ?? {}, `${at}.additional_provider_specific_params`) ?? {};
  if (apiBase === undefined || !unreachableFallback) return undefined;
  return { apiBase, ...(apiKey !== undefined ? { apiKey } : {}), headers, extraHeaders, unreachableFallback, failOnError, timeoutMs: timeoutS * 1000, params: extra };
}

function readModeration(read: SettingReader, params: Record<string, unknown>, at: string, problem: SettingProblem): ModerationSettings | undefined {
  for (const key of [...CONTENT_FILTER_KEYS, 'headers', 'extra_headers', 'unreachable_fallback', 'fail_on_error', 'timeout', 'additional_provider_specific_params'])
    if (params[key] !== undefined) problem(`${at}.${key}`, 'is not a field of openai_moderation');
  for (const key of ['api_key', 'api_base']) {
    if (params[key] !== undefined) {
      problem(
        `${at}.${key}`,
        'refused: the gateway asks a moderation model of its own model_list: give that model an entry there (with its api_key and api_base) and name it in model',
      );
    }
  }
  const model = read.string(params['model'], `${at}.model`) ?? 'omni-moderation-latest';
  const categories =
    params['categories'] === undefined
      ? undefined
      : read.list(params['categories'], `${at}.categories`).map((category, index) => read.string(category, `${at}.categories[${index}]`, true) ?? '');
  const threshold = read.number(params['threshold'], `${at}.threshold`);
  if (threshold !== undefined && !(threshold > 0 && threshold <= 1)) problem(`${at}.threshold`, 'must be a score above 0 and at most 1');
  return { model, ...(categories ? { categories } : {}), ...(threshold !== undefined ? { threshold } : {}) };
}

function readContentFilter(read: SettingReader, params: Record<string, unknown>, at: string, problem: SettingProblem): ContentFilterSettings {
  const patterns: FilterPattern[] = [];
  read.list(params['patterns'], `${at}.patterns`).forEach((raw, index) => {
    const here = `${at}.patterns[${index}]`;
    const entry = read.object(raw, here, PATTERN_KEYS);
    if (!entry) return;
    const type = read.oneOf(entry['pattern_type'] ?? 'prebuilt', `${here}.pattern_type`, ['prebuilt', 'regex'] as const);
    const action = read.oneOf(entry['action'] ?? 'BLOCK', `${here}.action`, ACTIONS);
    if (type === 'prebuilt') {
      const name = read.string(entry['pattern_name'], `${here}.pattern_name`, true);
      if (name !== undefined && !PREBUILT_PATTERN_NAMES.includes(name)) {
        problem(`${here}.pattern_name`, `"${name}" is not a prebuilt pattern (there are ${PREBUILT_PATTERN_NAMES.join(', ')}); write it as pattern_type: regex`);
      } else if (name !== undefined && action) patterns.push({ type, name, action });
    } else if (type === 'regex') {
      const source = read.string(entry['pattern'], `${here}.pattern`, true);
      const name = read.string(entry['name'], `${here}.name`) ?? 'custom';
      const compiled = source === undefined ? undefined : compileRegex(source);
      if (source !== undefined && !compiled) problem(`${here}.pattern`, 'is not a regular expression JavaScript can read');
      if (compiled && action) patterns.push({ type, name, regex: compiled.source, ignoreCase: compiled.ignoreCase, action });
    }
  });
  const blockedWords = readBlockedWords(read, params['blocked_words'], `${at}.blocked_words`);
  const wordsFile = read.string(params['blocked_words_file'], `${at}.blocked_words_file`);
  if (wordsFile !== undefined) {
    const document = readListFile(wordsFile, `${at}.blocked_words_file`, problem);
    if (document) {
      const inFile = `${at}.blocked_words_file (${wordsFile})`;
      const entries = read.object(document, inFile, WORDS_FILE_KEYS);
      if (entries) blockedWords.push(...readBlockedWords(read, entries['blocked_words'], `${inFile}.blocked_words`));
    }
  }
  const categories = read.list(params['categories'], `${at}.categories`).flatMap((raw, index) => readCategory(read, raw, `${at}.categories[${index}]`, problem) ?? []);
  const patternRedactionFormat = read.string(params['pattern_redaction_format'], `${at}.pattern_redaction_format`) ?? '[{pattern_name}_REDACTED]';
  if (!patternRedactionFormat.includes('{pattern_name}')) problem(`${at}.pattern_redaction_format`, 'must include {pattern_name}');
  return {
    patterns,
    blockedWords,
    categories,
    patternRedactionFormat,
    keywordRedactionTag: read.string(params['keyword_redaction_tag'], `${at}.keyword_redaction_tag`) ?? '[KEYWORD_REDACTED]',
  };
}

function readBlockedWords(read: SettingReader, value: unknown, at: string): { keyword: string; action: FilterAction }[] {
  const words: { keyword: string; action: FilterAction }[] = [];
  read.list(value, at).forEach((raw, index) => {
    const here = `${at}[${index}]`;
    const entry = read.object(raw, here, WORD_KEYS);
    if (!entry) return;
    const keyword = read.string(entry['keyword'], `${here}.keyword`, true);
    const action = read.oneOf(entry['action'] ?? 'BLOCK', `${here}.action`, ACTIONS);
    if (keyword !== undefined && action) words.push({ keyword, action });
  });
  return words;
}

/**
 * A category as LiteLLM writes it: `category`, `enabled`, `action`, `severity_threshold` (`low`,
 * `medium` — the default —, `high`) and `category_file`, the category's keywords with their
 * severity and its exceptions. The gateways ship no keyword lists of their own: a category without
 * `category_file` is refused rather than run empty.
 */
function readCategory(read: SettingReader, raw: unknown, at: string, problem: SettingProblem): FilterCategory | undefined {
  const entry = read.object(raw, at, CATEGORY_KEYS);
  if (!entry) return undefined;
  const name = read.string(entry['category'], `${at}.category`, true);
  const enabled = read.boolean(entry['enabled'], `${at}.enabled`) ?? true;
  const threshold = read.oneOf(entry['severity_threshold'] ?? 'medium', `${at}.severity_threshold`, SEVERITIES);
  const file = read.string(entry['category_file'], `${at}.category_file`);
  if (file === undefined) {
    if (name !== undefined) {
      problem(
        `${at}.category_file`,
        `refused: the gateways ship no keyword list of their own for "${name}", and its calls would pass unchecked; give category_file with its keywords`,
      );
    }
    return undefined;
  }
  const document = readListFile(file, `${at}.category_file`, problem);
  if (!document) return undefined;
  const inFile = `${at}.category_file (${file})`;
  const category = read.object(document, inFile, CATEGORY_FILE_KEYS);
  if (!category) return undefined;
  const action = read.oneOf(entry['action'] ?? category['default_action'] ?? 'BLOCK', `${at}.action`, ACTIONS);
  const lowest = SEVERITIES.indexOf(threshold ?? 'medium');
  const keywords: string[] = [];
  read.list(category['keywords'], `${inFile}.keywords`).forEach((rawKeyword, index) => {
    const here = `${inFile}.keywords[${index}]`;
    const keyword = read.object(rawKeyword, here, CATEGORY_KEYWORD_KEYS);
    if (!keyword) return;
    const text = read.string(keyword['keyword'], `${here}.keyword`, true);
    const severity = read.oneOf(keyword['severity'] ?? 'medium', `${here}.severity`, SEVERITIES);
    if (text !== undefined && severity && SEVERITIES.indexOf(severity) >= lowest) keywords.push(text);
  });
  if (read.list(category['keywords'], `${inFile}.keywords`).length === 0) problem(`${inFile}.keywords`, 'must list the keywords of the category');
  const exceptions = read.list(category['exceptions'], `${inFile}.exceptions`).flatMap((exception, index) => read.string(exception, `${inFile}.exceptions[${index}]`, true) ?? []);
  if (name === undefined || !action || !enabled || keywords.length === 0) return undefined;
  return { name, action, keywords, exceptions };
}

/** A YAML file a guardrail names (a keyword list): read once at start, relative paths from the working directory as LiteLLM reads them. */
function readListFile(file: string, at: string, problem: SettingProblem): unknown {
  let text: string;
  try {
    text = readFileSync(path.resolve(file), 'utf8');
  } catch (error) {
    problem(at, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    return undefined;
  }
  try {
    return parseYamlConfig(text, { variable: at });
  } catch (error) {
    problem(at, error instanceof ConfigError ? error.lines().join('; ') : `${file} is not YAML`);
    return undefined;
  }
}

/** A pattern as LiteLLM's configs write them (Python's `re`): a leading `(?i)` becomes the i flag. */
function compileRegex(source: string): { source: string; ignoreCase: boolean } | undefined {
  const ignoreCase = source.startsWith('(?i)');
  const body = ignoreCase ? source.slice(4) : source;
  try {
    new RegExp(body, 'g');
    return { source: body, ignoreCase };
  } catch {
    return undefined;
  }
}
