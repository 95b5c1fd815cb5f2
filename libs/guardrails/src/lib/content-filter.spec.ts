import { ContentFilter } from './content-filter';
import type { ContentFilterSettings, FilterPattern } from './guardrail-config';

const settings = (patterns: FilterPattern[], blockedWords: ContentFilterSettings['blockedWords'] = []): ContentFilterSettings => ({
  patterns,
  blockedWords,
  categories: [],
  patternRedactionFormat: '[{pattern_name}_REDACTED]',
  keywordRedactionTag: '[KEYWORD_REDACTED]',
});
const masking = (...names: string[]) => new ContentFilter(settings(names.map((name) => ({ type: 'prebuilt', name, action: 'MASK' }))));
const maskedText = (filter: ContentFilter, text: string) => {
  const verdict = filter.filter(text);
  if (!('text' in verdict)) throw new Error(`blocked by ${verdict.blocked.rule}`);
  return verdict.text;
};

describe('the content filter (litellm_content_filter)', () => {
  it.each([
    ['us_ssn', 'SSN 123-45-6789.', 'SSN [US_SSN_REDACTED].'],
    ['us_ssn', 'never issued: 000-12-3456, 666-12-3456, 123-00-4567', 'never issued: 000-12-3456, 666-12-3456, 123-00-4567'],
    ['email', 'write to john.doe+x@mail.example.co.uk now', 'write to [EMAIL_REDACTED] now'],
    ['credit_card', 'card 4111 1111 1111 1111, amex 3782-822463-10005', 'card [CREDIT_CARD_REDACTED], amex [CREDIT_CARD_REDACTED]'],
    ['credit_card', 'order 4111 1111 1111 1112 fails Luhn', 'order 4111 1111 1111 1112 fails Luhn'],
    ['credit_card', 'card 4111 1111 1111 1111 8bd8 and ref 7 5555-5555-5555-4444', 'card [CREDIT_CARD_REDACTED] 8bd8 and ref 7 [CREDIT_CARD_REDACTED]'],
    ['amex', 'ref 12 3782 822463 10005 ok', 'ref 12 [AMEX_REDACTED] ok'],
    ['visa', 'visa 4111111111111111, mastercard 5555555555554444', 'visa [VISA_REDACTED], mastercard 5555555555554444'],
    ['iban', 'IBAN DE89 3704 0044 0532 0130 00 or DE89370400440532013001', 'IBAN [IBAN_REDACTED] or DE89370400440532013001'],
    ['ipv4', 'host 10.0.0.1, version 1.2.3.4.5, not 999.1.1.1', 'host [IPV4_REDACTED], version 1.2.3.4.5, not 999.1.1.1'],
    ['ipv6', 'at 2001:db8::1 at 12:30:00', 'at [IPV6_REDACTED] at 12:30:00'],
    ['aws_access_key', 'key AKIAIOSFODNN7EXAMPLE', 'key [AWS_ACCESS_KEY_REDACTED]'],
    ['github_token', 'token ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'token [GITHUB_TOKEN_REDACTED]'],
    ['aws_secret_key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [AWS_SECRET_KEY_REDACTED]'],
    ['aws_secret_key', 'a sha1 0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33 alone', 'a sha1 0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33 alone'],
  ])('masks %s as its tag, and leaves what only looks like one: %s', (name, text, expected) => {
    expect(maskedText(masking(name), text)).toBe(expected);
  });

  it('blocks on the first BLOCK rule that matches, naming the rule, and masks nothing then', () => {
    const filter = new ContentFilter(
      settings([
        { type: 'prebuilt', name: 'email', action: 'MASK' },
        { type: 'prebuilt', name: 'us_ssn', action: 'BLOCK' },
      ]),
    );
    expect(filter.filter('mail a@b.io, SSN 123-45-6789')).toEqual({ blocked: { rule: 'us_ssn', keyword: false } });
    expect(filter.filter('mail a@b.io, SSN 123-45-6789', true)).toEqual({ text: 'mail [EMAIL_REDACTED], SSN 123-45-6789' });
  });

  it('matches keywords as whole words in any case, and custom regex patterns under their name', () => {
    const filter = new ContentFilter({
      ...settings(
        [{ type: 'regex', name: 'employee_id', regex: '\\b[A-Z]{3}-\\d{4}\\b', action: 'MASK' }],
        [
          { keyword: 'proprietary', action: 'MASK' },
          { keyword: 'secret project', action: 'BLOCK' },
        ],
      ),
      keywordRedactionTag: '***',
      patternRedactionFormat: '<{pattern_name}>',
    });
    expect(maskedText(filter, 'Proprietary data of ABC-1234, not unproprietary')).toBe('*** data of <EMPLOYEE_ID>, not unproprietary');
    expect(filter.filter('the Secret Project')).toEqual({ blocked: { rule: 'secret project', keyword: true } });
  });

  it("refuses a content category's keywords (whole words; phrases anywhere), not inside its exceptions, naming the category", () => {
    const filter = new ContentFilter({
      ...settings([]),
      categories: [
        { name: 'harmful_self_harm', action: 'BLOCK', keywords: ['suicide', 'harm myself'], exceptions: ['suicide prevention', 'mental health'] },
        { name: 'denied_financial_advice', action: 'MASK', keywords: ['buy this stock'], exceptions: [] },
      ],
    });
    expect(filter.filter('I want to harm myself')).toEqual({ blocked: { rule: 'harmful_self_harm', keyword: false, category: true } });
    expect(filter.filter('Thoughts of SUICIDE')).toEqual({ blocked: { rule: 'harmful_self_harm', keyword: false, category: true } });
    // Inside an exception the keyword does not count; a word containing a keyword is another word.
    expect(filter.filter('Where is the suicide prevention hotline? Suicides: none')).toEqual({ text: 'Where is the suicide prevention hotline? Suicides: none' });
    expect(filter.filter('Should I buy this stock now?')).toEqual({ text: 'Should I [KEYWORD_REDACTED] now?' });
  });
});
