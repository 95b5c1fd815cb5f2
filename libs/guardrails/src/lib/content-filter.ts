import type { ContentFilterSettings, FilterAction } from './guardrail-config';
import { PREBUILT_PATTERNS } from './prebuilt-patterns';

/** A rule of a content filter, compiled: what it finds, what it does then, how a masked match reads. */
interface CompiledRule {
  readonly name: string;
  readonly regex: RegExp;
  readonly valid?: (match: string) => boolean;
  readonly hint?: RegExp;
  readonly inGroup?: boolean;
  readonly action: FilterAction;
  readonly mask: string;
  /** A keyword rule (named as a keyword in a refusal, never quoted). */
  readonly keyword: boolean;
}

/** Why a content filter refused a text: the rule that matched (never the text it matched). */
export interface ContentBlocked {
  readonly rule: string;
  readonly keyword: boolean;
}

/**
 * LiteLLM's built-in content filter (`litellm_content_filter`), compiled once from its settings:
 * prebuilt patterns, regular expressions of the config's own and blocked keywords, each with
 * BLOCK or MASK. `filter(text)` answers the text as it may go on (matches of MASK rules replaced
 * by their tag) or the first BLOCK rule that matched.
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
    // BLOCK rules first: a text that is refused need not be masked.
    this.rules = [...patterns, ...keywords].sort((a, b) => Number(a.action === 'MASK') - Number(b.action === 'MASK'));
  }

  /** The text as it may go on, or what blocks it; with `maskOnly`, BLOCK rules are not looked at. */
  filter(text: string, maskOnly = false): { text: string } | { blocked: ContentBlocked } {
    let result = text;
    for (const rule of this.rules) {
      if (rule.hint && !rule.hint.test(result)) continue;
      if (rule.action === 'BLOCK') {
        if (maskOnly) continue;
        if (matches(rule, result)) return { blocked: { rule: rule.name, keyword: rule.keyword } };
        continue;
      }
      result = result.replace(rule.regex, (match: string, group: unknown) => {
        const found = rule.inGroup ? (group as string) : match;
        if (rule.valid && !rule.valid(found)) return match;
        return rule.inGroup ? match.slice(0, match.length - found.length) + rule.mask : rule.mask;
      });
    }
    return { text: result };
  }
}

function matches(rule: CompiledRule, text: string): boolean {
  for (const match of text.matchAll(rule.regex)) if (!rule.valid || rule.valid((rule.inGroup ? match[1] : match[0]) ?? '')) return true;
  return false;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
