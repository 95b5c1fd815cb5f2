import type { ContentFilterSettings, FilterAction } from './guardrail-config';
import { PREBUILT_PATTERNS, type PrebuiltPattern } from './prebuilt-patterns';

/** A rule of a content filter, compiled: what it finds, what it does then, how a masked match reads. */
interface CompiledRule {
  readonly name: string;
  readonly regex: RegExp;
  readonly valid?: (match: string) => boolean;
  readonly within?: PrebuiltPattern['within'];
  readonly hint?: RegExp;
  readonly inGroup?: boolean;
  readonly action: FilterAction;
  readonly mask: string;
  /** A keyword rule (named as a keyword in a refusal, never quoted). */
  readonly keyword: boolean;
  /** A category's rule: named as the category in a refusal. */
  readonly category?: boolean;
  /** A category's exceptions: a match inside one of their matches does not count. */
  readonly except?: RegExp;
}

/** Why a content filter refused a text: the rule that matched (never the text it matched). */
export interface ContentBlocked {
  readonly rule: string;
  readonly keyword: boolean;
  /** `rule` is a content category (LiteLLM's `categories`). */
  readonly category?: boolean;
}

/** A part of a text a MASK rule matched: `text.slice(start, end)` reads `mask` once masked. */
export interface MaskedSpan {
  readonly start: number;
  readonly end: number;
  readonly mask: string;
  /** Of scanAll: the index of the filter whose rule matched. */
  readonly by?: number;
}

/** What a scan found: the first BLOCK rule that matched, or the spans to mask (in order, none overlapping). */
export type ScanVerdict = { readonly blocked: ContentBlocked } | { readonly spans: readonly MaskedSpan[] };

const NO_SPANS: readonly MaskedSpan[] = Object.freeze([]);

/**
 * LiteLLM's built-in content filter (`litellm_content_filter`), compiled once from its settings:
 * prebuilt patterns, regular expressions of the config's own and blocked keywords, each with
 * BLOCK or MASK. Every rule looks at the text as it came (a mask never feeds another rule);
 * `scan(text)` answers where the MASK rules matched or the first BLOCK rule that did, `filter(text)`
 * the text as it may go on (matches of MASK rules replaced by their tag) or what blocks it.
 */
export class ContentFilter {
  private readonly rules: readonly CompiledRule[];

  constructor(settings: ContentFilterSettings) {
    const patterns = settings.patterns.map((pattern): CompiledRule => {
      const prebuilt = pattern.type === 'prebuilt' ? PREBUILT_PATTERNS[pattern.name] : undefined;
      return {
        name: pattern.name,
        regex: prebuilt?.regex ?? new RegExp(pattern.regex ?? '', pattern.ignoreCase ? 'gi' : 'g'),
        ...(prebuilt?.valid ? { valid: prebuilt.valid } : {}),
        ...(prebuilt?.within ? { within: prebuilt.within } : {}),
        ...(prebuilt?.hint ? { hint: prebuilt.hint } : {}),
        ...(prebuilt?.inGroup ? { inGroup: true } : {}),
        action: pattern.action,
        mask: settings.patternRedactionFormat.replaceAll('{pattern_name}', pattern.name.toUpperCase()),
        keyword: false,
      };
    });
    const keywords = settings.blockedWords.map((word): CompiledRule => ({
      name: word.keyword,
      // A keyword as a whole word (or phrase), in any case, as LiteLLM matches it.
      regex: new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word.keyword)}(?![\\p{L}\\p{N}_])`, 'giu'),
      action: word.action,
      mask: settings.keywordRedactionTag,
      keyword: true,
    }));
    const categories = settings.categories.map((category): CompiledRule => {
      // Single words as whole words, phrases anywhere (LiteLLM's matching), in any case; the longer first.
      const [words, phrases] = partition(
        [...category.keywords].sort((a, b) => b.length - a.length),
        (keyword) => !/\s/.test(keyword.trim()),
      );
      const alternatives = [...(words.length > 0 ? [`(?<![\\p{L}\\p{N}_])(?:${words.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}_])`] : []), ...phrases.map(escapeRegExp)];
      return {
        name: category.name,
        regex: new RegExp(alternatives.join('|'), 'giu'),
        action: category.action,
        mask: settings.keywordRedactionTag,
        keyword: false,
        category: true,
        ...(category.exceptions.length > 0 ? { except: new RegExp(category.exceptions.map(escapeRegExp).join('|'), 'giu') } : {}),
      };
    });
    // BLOCK rules first: a text that is refused need not be masked.
    this.rules = [...patterns, ...keywords, ...categories].sort((a, b) => Number(a.action === 'MASK') - Number(b.action === 'MASK'));
  }

  /** Whether any rule masks (a filter of BLOCK rules only never changes a text). */
  get masks(): boolean {
    return this.rules.some((rule) => rule.action === 'MASK');
  }

  /** Where the MASK rules match `text`, or the first BLOCK rule that does; with `maskOnly`, BLOCK rules are not looked at. */
  scan(text: string, maskOnly = false): ScanVerdict {
    let spans: MaskedSpan[] | undefined;
    for (const rule of this.rules) {
      if (rule.action === 'BLOCK' && maskOnly) continue;
      if (rule.hint && !rule.hint.test(text)) continue;
      const excepted = rule.except ? [...text.matchAll(rule.except)].map((match) => [match.index ?? 0, (match.index ?? 0) + match[0].length] as const) : undefined;
      for (const match of text.matchAll(rule.regex)) {
        let whole = match[0];
        let start = match.index ?? 0;
        let found = rule.inGroup ? (match[1] ?? '') : whole;
        if (rule.valid && !rule.valid(found)) {
          const part = rule.within?.(found);
          if (!part) continue;
          start += whole.length - found.length + part.offset;
          whole = found = found.slice(part.offset, part.offset + part.length);
        }
        if (excepted?.some(([from, to]) => from <= start && start + whole.length <= to)) continue;
        if (rule.action === 'BLOCK') return { blocked: { rule: rule.name, keyword: rule.keyword, ...(rule.category ? { category: true } : {}) } };
        const end = start + whole.length;
        (spans ??= []).push({ start: end - found.length, end, mask: rule.mask });
      }
    }
    return { spans: spans ? withoutOverlaps(spans) : NO_SPANS };
  }

  /** The text as it may go on, or what blocks it; with `maskOnly`, BLOCK rules are not looked at. */
  filter(text: string, maskOnly = false): { text: string } | { blocked: ContentBlocked } {
    const verdict = this.scan(text, maskOnly);
    return 'blocked' in verdict ? verdict : { text: masked(text, verdict.spans) };
  }
}

/**
 * Several filters over one text, each looking at it as it came: the first that blocks it (and which
 * one, by index), or every span they mask (where two overlap, the earlier, then the longer, wins).
 */
export function scanAll(filters: readonly ContentFilter[], text: string): { blocked: ContentBlocked; by: number } | { spans: readonly MaskedSpan[] } {
  if (filters.length === 1) {
    const verdict = (filters[0] as ContentFilter).scan(text);
    return 'blocked' in verdict ? { blocked: verdict.blocked, by: 0 } : verdict;
  }
  let spans: MaskedSpan[] | undefined;
  for (const [index, filter] of filters.entries()) {
    const verdict = filter.scan(text);
    if ('blocked' in verdict) return { blocked: verdict.blocked, by: index };
    for (const span of verdict.spans) (spans ??= []).push({ ...span, by: index });
  }
  return { spans: spans ? withoutOverlaps(spans) : NO_SPANS };
}

/** `text` with each span replaced by its mask. */
export function masked(text: string, spans: readonly MaskedSpan[]): string {
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + span.mask;
    at = span.end;
  }
  return out + text.slice(at);
}

/** Spans in order of where they start, the earlier (then the longer) of two that overlap kept. */
function withoutOverlaps(spans: MaskedSpan[]): MaskedSpan[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: MaskedSpan[] = [];
  for (const span of spans) {
    const last = kept[kept.length - 1];
    if (!last || span.start >= last.end) kept.push(span);
  }
  return kept;
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (test(item) ? yes : no).push(item);
  return [yes, no];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
