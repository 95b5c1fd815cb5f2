import { isIPv4, isIPv6 } from 'node:net';
import cardValidator from 'card-validator';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { LRUCache } from 'lru-cache';

/**
 * A prebuilt pattern of LiteLLM's content filter, by its name there: a regular expression that
 * finds candidates, and for formats with a checksum or a grammar a check that a candidate is one
 * (a card number passes Luhn, an IBAN its mod-97, an address parses), so that order numbers and
 * version strings are not taken for them.
 */
export interface PrebuiltPattern {
  readonly regex: RegExp;
  readonly valid?: (match: string) => boolean;
  /**
   * Where in a candidate that is not valid whole a valid one is (offset and length), for formats
   * written in groups: a card number followed by another number (`4111 1111 1111 1111 8`) is
   * still a card number. Asked only after `valid` said no.
   */
  readonly within?: (match: string) => { offset: number; length: number } | undefined;
  /** A cheap test a text must pass for the pattern to be looked for in it at all. */
  readonly hint?: RegExp;
  /** The pattern's own part is its first group, which ends the match (the words before it only say what it is). */
  readonly inGroup?: boolean;
}

// card-validator takes tens of microseconds a number, and five patterns look at the same ones.
const CARD_TYPES = new LRUCache<string, string | false>({ max: 1000 });

/** The network of a valid card number (card-validator: Luhn and the networks' number ranges), or false. */
function cardType(digits: string): string | false {
  let type = CARD_TYPES.get(digits);
  if (type === undefined) {
    const verdict = cardValidator.number(digits);
    type = verdict.isValid && verdict.card !== null ? verdict.card.type : false;
    CARD_TYPES.set(digits, type);
  }
  return type;
}

/** A card number of one of the named networks (any, when none is named). */
function cardOf(...types: string[]): (match: string) => boolean {
  return (match) => {
    const type = cardType(match.replace(/[\s-]/g, ''));
    return type !== false && (types.length === 0 || types.includes(type));
  };
}

/**
 * The longest run of whole digit groups of a candidate that is a card number of the named networks:
 * the candidate's regex is greedy, so digits next to a card number (separated like its groups) join it.
 */
function cardWithin(...types: string[]): (match: string) => { offset: number; length: number } | undefined {
  const valid = cardOf(...types);
  return (match) => {
    const groups = [...match.matchAll(/\d+/g)].map((group) => ({ start: group.index ?? 0, end: (group.index ?? 0) + group[0].length }));
    if (groups.length < 2) return undefined;
    let best: { offset: number; length: number } | undefined;
    for (let first = 0; first < groups.length; first++) {
      for (let last = groups.length - 1; last >= first; last--) {
        if (first === 0 && last === groups.length - 1) continue;
        const from = (groups[first] as { start: number }).start;
        const to = (groups[last] as { end: number }).end;
        if (best && to - from <= best.length) break;
        const digits = match.slice(from, to).replace(/[\s-]/g, '').length;
        if (digits >= 12 && digits <= 19 && valid(match.slice(from, to))) best = { offset: from, length: to - from };
      }
    }
    return best;
  };
}

// Digits in groups of up to four, spaces or dashes between them: how card numbers are written.
const CARD_NUMBER = /(?<![\d-])\d(?:[ -]?\d){11,18}(?![\d-])/g;
const CARD_HINT = /\d[ -]?\d[ -]?\d[ -]?\d/;

export const PREBUILT_PATTERNS: Readonly<Record<string, PrebuiltPattern>> = {
  // Area 000, 666 and 9xx, group 00 and serial 0000 are never issued.
  us_ssn: { regex: /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g },
  email: { regex: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g, hint: /@/ },
  phone: { regex: /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)|\d{2,4})[\s.-]\d{3,4}[\s.-]\d{3,4}(?!\w)/g },
  us_phone: { regex: /(?<![\w+])(?:\+?1[\s.-]?)?(?:\(\d{3}\)|\d{3})[\s.-]?\d{3}[\s.-]\d{4}(?!\w)/g },
  credit_card: { regex: CARD_NUMBER, hint: CARD_HINT, valid: cardOf(), within: cardWithin() },
  visa: { regex: CARD_NUMBER, hint: CARD_HINT, valid: cardOf('visa'), within: cardWithin('visa') },
  mastercard: { regex: CARD_NUMBER, hint: CARD_HINT, valid: cardOf('mastercard'), within: cardWithin('mastercard') },
  amex: { regex: CARD_NUMBER, hint: CARD_HINT, valid: cardOf('american-express'), within: cardWithin('american-express') },
  discover: { regex: CARD_NUMBER, hint: CARD_HINT, valid: cardOf('discover'), within: cardWithin('discover') },
  iban: {
    regex: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g,
    valid: (match) => isValidIBAN(electronicFormatIBAN(match) ?? ''),
  },
  ipv4: { regex: /(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])/g, valid: isIPv4 },
  ipv6: { regex: /(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])/g, hint: /:[0-9A-Fa-f]{0,4}:/, valid: (match) => isIPv6(match) },
  aws_access_key: { regex: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b/g },
  // 40 characters of base64 after the words that name one: a bare 40-character run is too often a hash.
  aws_secret_key: { regex: /\baws.{0,20}?(?:secret|key).{0,20}?[\s:="']+([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi, hint: /aws/i, inGroup: true },
  github_token: { regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  slack_token: { regex: /\bxox[abposr]-[A-Za-z0-9-]{10,250}\b/g },
  private_key: { regex: /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z]+ )?PRIVATE KEY-----/g },
};

export const PREBUILT_PATTERN_NAMES = Object.keys(PREBUILT_PATTERNS);
