import { ANTHROPIC_MESSAGES } from './anthropic-messages/anthropic-messages.codec';
import { clientCodec } from './client-codec';
import { OPENAI_CHAT } from './openai/openai-codecs';

describe('the family whose client sent a request, for routes that are no family’s own', () => {
  it.each([
    { client: "Anthropic's SDK (anthropic-version)", headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk' }, codec: ANTHROPIC_MESSAGES },
    { client: "Anthropic's SDK with a bearer key", headers: { 'anthropic-version': '2023-06-01', authorization: 'Bearer sk' }, codec: ANTHROPIC_MESSAGES },
    { client: "OpenAI's SDK", headers: { authorization: 'Bearer sk', 'openai-beta': 'assistants=v2' }, codec: OPENAI_CHAT },
    { client: 'a client that says nothing', headers: {}, codec: OPENAI_CHAT },
  ])('is read from the headers: $client', ({ headers, codec }) => {
    expect(clientCodec(headers).name).toBe(codec.name);
  });
});
