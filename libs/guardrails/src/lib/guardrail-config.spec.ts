import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type GuardrailScope, readGuardrails } from './guardrail-config';

// As a gateway of model calls that runs only pre_call would read its list.
const SCOPE: GuardrailScope = {
  modes: ['pre_call'],
  refused: { post_call: 'answers are not checked here', pre_mcp_call: "tool calls are the MCP gateway's" },
};

const problemsOf = (value: unknown): string[] => {
  const problems: string[] = [];
  readGuardrails(value, (path, message) => problems.push(`${path}: ${message}`), SCOPE);
  return problems;
};

describe("the config's guardrails list", () => {
  it("reads LiteLLM's content-filter example as written", () => {
    const problems: string[] = [];
    const guardrails = readGuardrails(
      [
        {
          guardrail_name: 'content-filter-pre',
          litellm_params: {
            guardrail: 'litellm_content_filter',
            mode: 'pre_call',
            patterns: [
              { pattern_type: 'prebuilt', pattern_name: 'us_ssn', action: 'BLOCK' },
              { pattern_type: 'regex', pattern: '(?i)project-\\d{6}', name: 'project_code', action: 'MASK' },
            ],
            blocked_words: [{ keyword: 'confidential', action: 'BLOCK', description: 'Sensitive internal information' }],
          },
        },
      ],
      (path, message) => problems.push(`${path}: ${message}`),
      SCOPE,
    );
    expect(problems).toEqual([]);
    expect(guardrails).toEqual([
      {
        name: 'content-filter-pre',
        kind: 'litellm_content_filter',
        modes: ['pre_call'],
        defaultOn: false,
        contentFilter: {
          patterns: [
            { type: 'prebuilt', name: 'us_ssn', action: 'BLOCK' },
            { type: 'regex', name: 'project_code', regex: 'project-\\d{6}', ignoreCase: true, action: 'MASK' },
          ],
          blockedWords: [{ keyword: 'confidential', action: 'BLOCK' }],
          categories: [],
          patternRedactionFormat: '[{pattern_name}_REDACTED]',
          keywordRedactionTag: '[KEYWORD_REDACTED]',
        },
      },
    ]);
  });

  it("reads LiteLLM's keyword file and custom category file, keeping a category's keywords at or above its threshold", () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'arbor-guardrail-files-'));
    const words = path.join(directory, 'sensitive_keywords.yaml');
    writeFileSync(
      words,
      'blocked_words:\n  - keyword: "project_apollo"\n    action: "BLOCK"\n    description: "Confidential project codename"\n  - keyword: "internal_api"\n    action: "MASK"\n',
    );
    const category = path.join(directory, 'custom.yaml');
    writeFileSync(
      category,
      'category_name: "harmful_self_harm"\ndescription: "Custom self-harm detection"\ndefault_action: "BLOCK"\nkeywords:\n  - keyword: "suicide"\n    severity: "high"\n  - keyword: "feel low"\n    severity: "low"\nexceptions:\n  - "suicide prevention"\n',
    );
    const problems: string[] = [];
    const [guardrail] = readGuardrails(
      [
        {
          guardrail_name: 'files',
          litellm_params: {
            guardrail: 'litellm_content_filter',
            blocked_words_file: words,
            categories: [{ category: 'harmful_self_harm', enabled: true, severity_threshold: 'medium', category_file: category }],
          },
        },
      ],
      (at, message) => problems.push(`${at}: ${message}`),
      SCOPE,
    );
    expect(problems).toEqual([]);
    expect(guardrail).toMatchObject({
      contentFilter: {
        blockedWords: [
          { keyword: 'project_apollo', action: 'BLOCK' },
          { keyword: 'internal_api', action: 'MASK' },
        ],
        // "feel low" is below the medium threshold.
        categories: [{ name: 'harmful_self_harm', action: 'BLOCK', keywords: ['suicide'], exceptions: ['suicide prevention'] }],
      },
    });
    expect(
      problemsOf([
        { guardrail_name: 'gone', litellm_params: { guardrail: 'litellm_content_filter', blocked_words_file: path.join(directory, 'nope.yaml') } },
        { guardrail_name: 'bad', litellm_params: { guardrail: 'litellm_content_filter', categories: [{ category: 'x', category_file: words }] } },
      ]),
    ).toEqual([
      `guardrails[0].litellm_params.blocked_words_file: cannot read ${path.join(directory, 'nope.yaml')}: ENOENT`,
      expect.stringMatching(/^guardrails\[1\]\.litellm_params\.categories\[0\]\.category_file \(.*sensitive_keywords\.yaml\)\.blocked_words: /),
      expect.stringMatching(/^guardrails\[1\]\.litellm_params\.categories\[0\]\.category_file \(.*sensitive_keywords\.yaml\)\.keywords: must list the keywords/),
    ]);
  });

  it('refuses what it would not run, each at its path: other guardrails, modes, pattern names, categories, a bad regex', () => {
    expect(
      problemsOf([
        { guardrail_name: 'a', litellm_params: { guardrail: 'presidio', mode: 'pre_call' } },
        { guardrail_name: 'b', litellm_params: { guardrail: 'litellm_content_filter', mode: ['pre_call', 'post_call'] } },
        {
          guardrail_name: 'c',
          litellm_params: {
            guardrail: 'litellm_content_filter',
            patterns: [
              { pattern_type: 'prebuilt', pattern_name: 'nhs_number' },
              { pattern_type: 'regex', pattern: '(unclosed' },
            ],
            categories: [{ category: 'harmful_violence' }],
          },
        },
        { guardrail_name: 'c', litellm_params: { guardrail: 'litellm_content_filter', patterns: [{ pattern_name: 'email', action: 'REDACT' }] } },
      ]),
    ).toEqual([
      'guardrails[0].litellm_params.guardrail: "presidio" is not a guardrail the gateway runs (it runs litellm_content_filter), and calls would pass it unchecked',
      'guardrails[1].litellm_params.mode[1]: refused: answers are not checked here',
      expect.stringMatching(/^guardrails\[2\]\.litellm_params\.patterns\[0\]\.pattern_name: "nhs_number" is not a prebuilt pattern \(there are us_ssn, email, /),
      'guardrails[2].litellm_params.patterns[1].pattern: is not a regular expression JavaScript can read',
      'guardrails[2].litellm_params.categories[0].category_file: refused: the gateways ship no keyword list of their own for "harmful_violence", and its calls would pass unchecked; give category_file with its keywords',
      'guardrails[3].guardrail_name: "c" names another guardrail too',
      'guardrails[3].litellm_params.patterns[0].action: must be one of BLOCK, MASK, got "REDACT"',
    ]);
  });

  it("reads a mode or a list of them, and refuses the modes this gateway does not run with the scope's reason", () => {
    expect(
      problemsOf([
        { guardrail_name: 'a', litellm_params: { guardrail: 'litellm_content_filter', mode: 'pre_mcp_call' } },
        { guardrail_name: 'b', litellm_params: { guardrail: 'litellm_content_filter', mode: ['logging_only'] } },
        { guardrail_name: 'c', litellm_params: { guardrail: 'litellm_content_filter', mode: 'before_call' } },
        { guardrail_name: 'd', litellm_params: { guardrail: 'litellm_content_filter', mode: [] } },
      ]),
    ).toEqual([
      "guardrails[0].litellm_params.mode: refused: tool calls are the MCP gateway's",
      'guardrails[1].litellm_params.mode[0]: refused: logging_only (masking what is logged only) is not served; the gateways log no content',
      'guardrails[2].litellm_params.mode: must be one of pre_call, post_call, during_call, pre_mcp_call, post_mcp_call, got "before_call"',
      'guardrails[3].litellm_params.mode: must name at least one mode',
    ]);
    const guardrails = readGuardrails([{ guardrail_name: 'a', litellm_params: { guardrail: 'litellm_content_filter', mode: ['pre_call', 'pre_call'] } }], () => undefined, SCOPE);
    expect(guardrails.map(({ modes }) => modes)).toEqual([['pre_call']]);
  });

  it('reads openai_moderation where the scope runs it, and refuses what LiteLLM would send to OpenAI itself', () => {
    const problems: string[] = [];
    const guardrails = readGuardrails(
      [
        { guardrail_name: 'mod', litellm_params: { guardrail: 'openai_moderation', mode: 'pre_call', model: 'moderation', categories: ['violence'], threshold: 0.5 } },
        { guardrail_name: 'bad', litellm_params: { guardrail: 'openai_moderation', api_key: 'sk-x', threshold: 2, patterns: [] } },
      ],
      (path, message) => problems.push(`${path}: ${message}`),
      { ...SCOPE, kinds: ['litellm_content_filter', 'openai_moderation'] },
    );
    expect(guardrails[0]).toEqual({
      name: 'mod',
      kind: 'openai_moderation',
      modes: ['pre_call'],
      defaultOn: false,
      moderation: { model: 'moderation', categories: ['violence'], threshold: 0.5 },
    });
    expect(problems).toEqual([
      'guardrails[1].litellm_params.patterns: is not a field of openai_moderation',
      expect.stringMatching(/^guardrails\[1\]\.litellm_params\.api_key: refused: the gateway asks a moderation model of its own model_list/),
      'guardrails[1].litellm_params.threshold: must be a score above 0 and at most 1',
    ]);
    expect(problemsOf([{ guardrail_name: 'mod', litellm_params: { guardrail: 'openai_moderation' } }])).toEqual([
      'guardrails[0].litellm_params.guardrail: "openai_moderation" is not a guardrail the gateway runs (it runs litellm_content_filter), and calls would pass it unchecked',
    ]);
  });
});
