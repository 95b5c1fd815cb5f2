import { NO_USAGE } from '../calls/usage';
import { BUILT_IN_PRICES } from './built-in-prices';
import { costOf, type ModelPrice } from './model-price';

const price = (model: string): ModelPrice => {
  const found = BUILT_IN_PRICES.get(model);
  if (!found) throw new Error(`no built-in price for ${model}`);
  return found;
};

describe('prices of images, audio and speech', () => {
  it('prices images per image by quality and size, the most specific tier first', () => {
    const images = (count: number, size?: string, quality?: string) => ({ ...NO_USAGE, images: { count, ...(size ? { size } : {}), ...(quality ? { quality } : {}) } });
    expect(costOf(images(2, '1024x1536', 'high'), price('openai/gpt-image-1'))).toBeCloseTo(0.5, 10);
    expect(costOf(images(1, '1024x1792', 'hd'), price('openai/dall-e-3'))).toBeCloseTo(0.12, 10);
    expect(costOf(images(1, '1792x1024', 'standard'), price('openai/dall-e-3'))).toBeCloseTo(0.08, 10);
    expect(costOf(images(1), price('openai/dall-e-3'))).toBeCloseTo(0.04, 10);
    expect(costOf(images(3, '1024x1024'), price('gemini/imagen-4.0-generate-001'))).toBeCloseTo(0.12, 10);
  });

  it('lets a flat output_cost_per_image win over the tiers', () => {
    expect(costOf({ ...NO_USAGE, images: { count: 2, size: '1024x1024', quality: 'high' } }, { ...price('openai/gpt-image-1'), costPerImage: 0.01 })).toBeCloseTo(0.02, 10);
  });

  it('prices transcription per second and speech per character', () => {
    expect(costOf({ ...NO_USAGE, audioSeconds: 60 }, price('openai/whisper-1'))).toBeCloseTo(0.006, 10);
    expect(costOf({ ...NO_USAGE, characters: 1000 }, price('openai/tts-1'))).toBeCloseTo(0.015, 10);
    expect(costOf({ ...NO_USAGE, characters: 1000 }, price('openai/tts-1-hd'))).toBeCloseTo(0.03, 10);
  });
});
