import type { ListPrice } from '../lib/provider-adapter';

const price = (input: number, output: number, cacheRead?: number): ListPrice => ({ input, output, ...(cacheRead !== undefined ? { cacheRead } : {}) });

/** OpenAI's list prices (standard tier, no batch discount), USD per million tokens. */
export const OPENAI_PRICES: ReadonlyMap<string, ListPrice> = new Map([
  ['gpt-5', price(1.25, 10, 0.125)],
  ['gpt-5-mini', price(0.25, 2, 0.025)],
  ['gpt-5-nano', price(0.05, 0.4, 0.005)],
  ['gpt-4.1', price(2, 8, 0.5)],
  ['gpt-4.1-mini', price(0.4, 1.6, 0.1)],
  ['gpt-4.1-nano', price(0.1, 0.4, 0.025)],
  ['gpt-4o', price(2.5, 10, 1.25)],
  ['gpt-4o-mini', price(0.15, 0.6, 0.075)],
  ['gpt-4-turbo', price(10, 30)],
  ['gpt-4', price(30, 60)],
  ['gpt-3.5-turbo', price(0.5, 1.5)],
  ['gpt-3.5-turbo-instruct', price(1.5, 2)],
  ['o1', price(15, 60, 7.5)],
  ['o1-mini', price(1.1, 4.4, 0.55)],
  ['o3', price(2, 8, 0.5)],
  ['o3-mini', price(1.1, 4.4, 0.55)],
  ['o4-mini', price(1.1, 4.4, 0.275)],
  ['text-embedding-3-small', price(0.02, 0)],
  ['text-embedding-3-large', price(0.13, 0)],
  ['text-embedding-ada-002', price(0.1, 0)],
  // Images, per image by quality and size (GPT Image's token usage is reported, its price is per image).
  [
    'gpt-image-1',
    {
      input: 0,
      output: 0,
      perImage: {
        'low/1024x1024': 0.011,
        'low/1024x1536': 0.016,
        'low/1536x1024': 0.016,
        'medium/1024x1024': 0.042,
        'medium/1024x1536': 0.063,
        'medium/1536x1024': 0.063,
        'high/1024x1024': 0.167,
        'high/1024x1536': 0.25,
        'high/1536x1024': 0.25,
        default: 0.042,
      },
    },
  ],
  ['gpt-image-1-mini', { input: 0, output: 0, perImage: { low: 0.005, medium: 0.011, high: 0.036, default: 0.011 } }],
  ['dall-e-3', { input: 0, output: 0, perImage: { 'hd/1024x1024': 0.08, 'hd/1024x1792': 0.12, 'hd/1792x1024': 0.12, '1024x1792': 0.08, '1792x1024': 0.08, default: 0.04 } }],
  ['dall-e-2', { input: 0, output: 0, perImage: { '256x256': 0.016, '512x512': 0.018, default: 0.02 } }],
  // Audio: Whisper per second transcribed, the GPT-4o transcribers by their token usage, speech per character.
  ['whisper-1', { input: 0, output: 0, perSecond: 0.0001 }],
  ['gpt-4o-transcribe', price(6, 10)],
  ['gpt-4o-mini-transcribe', price(3, 5)],
  ['tts-1', { input: 0, output: 0, perCharacter: 0.000015 }],
  ['tts-1-hd', { input: 0, output: 0, perCharacter: 0.00003 }],
  // Moderations cost nothing.
  ['omni-moderation-latest', price(0, 0)],
  ['text-moderation-latest', price(0, 0)],
  // Realtime models: text and audio tokens at their own prices (cached audio at the cached price).
  ['gpt-realtime', { ...price(4, 16, 0.4), audioInput: 32, audioOutput: 64 }],
  ['gpt-realtime-mini', { ...price(0.6, 2.4, 0.06), audioInput: 10, audioOutput: 20 }],
  ['gpt-4o-realtime-preview', { ...price(5, 20, 2.5), audioInput: 40, audioOutput: 80 }],
  ['gpt-4o-mini-realtime-preview', { ...price(0.6, 2.4, 0.3), audioInput: 10, audioOutput: 20 }],
]);
