import { ProviderError } from '../lib/provider-error';
import { toImagenRequest, toImagesResponse } from './gemini.images';

describe("Imagen's predict for OpenAI's image generation", () => {
  it('asks for n images at the aspect ratio nearest to the size', () => {
    expect(toImagenRequest({ model: 'imagen', prompt: 'a cat', n: 2, size: '1024x1024' })).toEqual({
      instances: [{ prompt: 'a cat' }],
      parameters: { sampleCount: 2, aspectRatio: '1:1' },
    });
    expect(toImagenRequest({ prompt: 'p', size: '1792x1024' })['parameters']).toEqual({ aspectRatio: '16:9' });
    expect(toImagenRequest({ prompt: 'p', size: '1024x1792' })['parameters']).toEqual({ aspectRatio: '9:16' });
    expect(toImagenRequest({ prompt: 'p', size: '1536x1024' })['parameters']).toEqual({ aspectRatio: '4:3' });
    expect(toImagenRequest({ prompt: 'p', size: 'auto', output_format: 'jpeg' })['parameters']).toEqual({ outputOptions: { mimeType: 'image/jpeg' } });
  });

  it('refuses what Imagen cannot answer, naming the parameter', () => {
    const refusal = (body: Record<string, unknown>) => {
      try {
        toImagenRequest(body);
      } catch (error) {
        return error instanceof ProviderError ? { status: error.status, param: error.param } : error;
      }
      return undefined;
    };
    expect(refusal({ prompt: 'p', response_format: 'url' })).toEqual({ status: 400, param: 'response_format' });
    expect(refusal({ prompt: 'p', n: 5 })).toEqual({ status: 400, param: 'n' });
    expect(refusal({ prompt: 'p', size: 'big' })).toEqual({ status: 400, param: 'size' });
    expect(refusal({})).toEqual({ status: 400, param: 'prompt' });
  });

  it("answers the predictions as b64_json images, leaving out those Imagen's filter withheld", () => {
    const answer = toImagesResponse(
      { predictions: [{ bytesBase64Encoded: 'AAA', mimeType: 'image/png' }, { raiFilteredReason: 'filtered' }, { bytesBase64Encoded: 'BBB', mimeType: 'image/png' }] },
      1700000000,
    );
    expect(answer).toEqual({ created: 1700000000, data: [{ b64_json: 'AAA' }, { b64_json: 'BBB' }], output_format: 'png' });
  });
});
