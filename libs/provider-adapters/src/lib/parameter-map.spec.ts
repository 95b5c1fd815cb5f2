import { ANTHROPIC_CHAT_PARAMETERS, ANTHROPIC_CHAT_PARAMS, DEFAULT_MAX_TOKENS } from '../anthropic/anthropic.params';
import { GEMINI_CHAT_PARAMETERS } from '../gemini/gemini.params';
import { mapParameters } from './parameter-map';

describe('parameter maps', () => {
  it("rename, convert and nest an OpenAI-format request's parameters as the provider names them", () => {
    expect(mapParameters({ stop: 'END', user: 'u-1', temperature: 0.2, max_completion_tokens: 50, max_tokens: 10 }, ANTHROPIC_CHAT_PARAMETERS)).toEqual({
      stop_sequences: ['END'],
      metadata: { user_id: 'u-1' },
      temperature: 0.2,
      // The later rule wins: max_completion_tokens over the older max_tokens.
      max_tokens: 50,
    });
    expect(mapParameters({ top_p: 0.9, n: 2, stop: ['a', 'b'], max_tokens: 7 }, GEMINI_CHAT_PARAMETERS)).toEqual({
      generationConfig: { topP: 0.9, candidateCount: 2, stopSequences: ['a', 'b'], maxOutputTokens: 7 },
    });
  });

  it('fill a required field the client left out, and leave out what converts to nothing', () => {
    expect(mapParameters({ stream: false, user: 42, stop: [], temperature: null }, ANTHROPIC_CHAT_PARAMETERS)).toEqual({ max_tokens: DEFAULT_MAX_TOKENS });
  });

  it('name every parameter the provider honours, translated in code or not, for drop_params', () => {
    expect([...ANTHROPIC_CHAT_PARAMS]).toEqual(expect.arrayContaining(['messages', 'tools', 'stop', 'max_completion_tokens', 'thinking']));
    expect(ANTHROPIC_CHAT_PARAMS.has('logprobs')).toBe(false);
  });
});
