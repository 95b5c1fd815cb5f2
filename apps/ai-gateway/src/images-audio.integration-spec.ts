// OpenAI's images, audio and moderations as their clients meet them: the official OpenAI SDK's
// `images.generate` / `images.edit`, `audio.transcriptions.create` (every response_format, and
// streamed), `audio.speech.create` and `moderations.create` against the gateway, the gateway
// against tools/fake-providers (OpenAI, Azure OpenAI and Gemini's Imagen); the endpoints the seed
// says are not served (variations, translations, fine-tuning) answered with a 404 the SDK knows.
import OpenAI, { BadRequestError, NotFoundError, toFile } from 'openai';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import request from 'supertest';
import { RunningService } from '@arbor/platform';
import { AiGatewayConfig } from '@arbor/config';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import {
  HOSTILE_PART_HEADERS,
  lastRequestWith,
  MASTER_KEY,
  postHostileForm,
  rejectionOf,
  sdkClient,
  startFake,
  startTestGateway,
  writeConfig,
} from './testing/gateway-test-support';

const deployment = (alias: string, model: string, base: string, extra = '') => `
  - model_name: ${alias}
    litellm_params: { model: ${model}, api_base: ${base}, api_key: sk-upstream }${extra}`;

// The upload limit of this test's gateway (AIGW_MAX_UPLOAD_SIZE), small enough to go past.
const UPLOAD_LIMIT = '4MiB';

/** Spooled uploads in the temporary folder. */
const spooledUploads = () => readdirSync(tmpdir()).filter((name) => name.startsWith('arbor-upload-'));

/**
 * The spooled uploads still there after up to 2 s (there must be none once a call is over). Other
 * suites' gateways (the fuzz suite's, running alongside) spool briefly into the same folder, so
 * the folder is watched until it is empty rather than read once; a file left behind stays.
 */
async function uploadsLeft(): Promise<string[]> {
  for (let tries = 0; tries < 40 && spooledUploads().length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
  return spooledUploads();
}

describe('images, audio and moderations through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;
  let client: OpenAI;
  const asMaster = { authorization: `Bearer ${MASTER_KEY}` };

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    const v1 = `${fake.url}/v1`;
    const config = `model_list:${[
      deployment('gpt-image', 'openai/gpt-image-1', v1),
      deployment('dalle', 'openai/dall-e-3', v1),
      deployment('azure-image', 'azure/my-image-deployment', `${fake.url}/azure`, '\n    model_info: { base_model: dall-e-3 }'),
      deployment('imagen', 'gemini/imagen-4.0-generate-001', `${fake.url}/gemini`),
      deployment('whisper', 'openai/whisper-1', v1),
      deployment('transcribe', 'openai/gpt-4o-transcribe', v1),
      deployment('azure-whisper', 'azure/my-whisper', `${fake.url}/azure`, '\n    model_info: { base_model: whisper-1 }'),
      deployment('whisper-down', 'openai/fail-503', v1),
      deployment('tts', 'openai/tts-1', v1),
      deployment('azure-tts', 'azure/my-tts', `${fake.url}/azure`, '\n    model_info: { base_model: tts-1 }'),
      deployment('tts-large', 'openai/tts-bytes-3000000', v1, '\n    model_info: { input_cost_per_character: 0.00001 }'),
      deployment('moderation', 'openai/omni-moderation-latest', v1),
      deployment('claude', 'anthropic/claude-sonnet-4-5', `${fake.url}/anthropic`),
      deployment('azure-gpt', 'azure/my-gpt-deployment', `${fake.url}/azure`),
    ].join('')}
router_settings:
  fallbacks: [{ whisper-down: [whisper] }]
`;
    gateway = await startTestGateway(database, writeConfig(config), { AIGW_MAX_UPLOAD_SIZE: UPLOAD_LIMIT });
    client = sdkClient(gateway);
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  /** A key of a project of its own, its SDK client, and its spend once `calls` calls are recorded (spend is written behind the request). */
  async function ownKey(project: string) {
    const created = (await request(gateway.url).post('/api/v1/keys').set(asMaster).send({ project }).expect(201)).body as { id: string; key: string };
    const spendAfter = async (calls: number) => {
      let report: { spend: number; totals: Record<string, number> } | undefined;
      for (let tries = 0; tries < 100 && (report?.totals['requests'] ?? 0) < calls; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        report = (await request(gateway.url).get(`/api/v1/keys/${created.id}/spend`).set(asMaster).expect(200)).body as typeof report;
      }
      return report;
    };
    return { client: sdkClient(gateway, created.key), spendAfter };
  }

  it.each(Object.entries(HOSTILE_PART_HEADERS))(
    'answers an upload with %s on image edits and transcriptions with a 400, and stays up for the next call',
    async (_what, partHeaders) => {
      for (const route of ['/v1/images/edits', '/v1/audio/transcriptions']) {
        expect(await postHostileForm(`${gateway.url}${route}`, MASTER_KEY, partHeaders)).toEqual({
          status: 400,
          body: {
            error: expect.objectContaining({ type: 'invalid_request_error', code: 'invalid_request', message: expect.stringMatching(/^The multipart request cannot be read/) }),
          },
        });
      }
      const image = await toFile(Buffer.alloc(100, 1), 'next.png', { type: 'image/png' });
      expect((await client.images.edit({ model: 'gpt-image', image, prompt: 'after a hostile form' })).data).toHaveLength(1);
      const audio = await toFile(Buffer.alloc(16_000, 3), 'next.mp3', { type: 'audio/mpeg' });
      expect((await client.audio.transcriptions.create({ model: 'whisper', file: audio })).text).toBe('fake transcript of next.mp3');
    },
  );

  describe('images', () => {
    it('generates images on an OpenAI alias with the provider model, b64_json as GPT Image answers, priced per image by size and quality', async () => {
      const { data, response } = await client.images.generate({ model: 'gpt-image', prompt: 'a fake lighthouse', n: 2, size: '1024x1536', quality: 'high' }).withResponse();
      expect(data.data).toHaveLength(2);
      expect(data.data?.[0]?.b64_json).toMatch(/^iVBOR/);
      expect(data).toMatchObject({ size: '1024x1536', quality: 'high' });
      // GPT Image high 1024x1536: $0.25 an image.
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(2 * 0.25, 10);
      expect(response.headers.get('x-arbor-model-group')).toBe('gpt-image');
      const seen = await lastRequestWith(fake, 'a fake lighthouse');
      expect(seen.path).toBe('/v1/images/generations');
      expect(seen.json).toMatchObject({ model: 'gpt-image-1', prompt: 'a fake lighthouse', n: 2, size: '1024x1536', quality: 'high' });
    });

    it("streams GPT Image's partial and completed image events on, each completed image priced", async () => {
      const own = await ownKey('images-stream-spend');
      const stream = await own.client.images.generate({
        model: 'gpt-image',
        prompt: 'streamed picture',
        n: 2,
        stream: true,
        partial_images: 1,
        quality: 'medium',
        size: '1024x1024',
      });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types).toEqual(['image_generation.partial_image', 'image_generation.completed', 'image_generation.partial_image', 'image_generation.completed']);
      const report = await own.spendAfter(1);
      expect(report?.spend).toBeCloseTo(2 * 0.042, 10);
    });

    it('answers DALL·E urls as OpenAI does, and prices HD portrait images above standard squares', async () => {
      const hd = await client.images.generate({ model: 'dalle', prompt: 'dalle hd', size: '1024x1792', quality: 'hd' }).withResponse();
      expect(hd.data.data?.[0]?.url).toMatch(/^https:\/\/fake-images\.invalid\//);
      expect(Number(hd.response.headers.get('x-arbor-response-cost'))).toBeCloseTo(0.12, 10);
      const standard = await client.images.generate({ model: 'dalle', prompt: 'dalle standard', response_format: 'b64_json' }).withResponse();
      expect(standard.data.data?.[0]?.b64_json).toMatch(/^iVBOR/);
      expect(Number(standard.response.headers.get('x-arbor-response-cost'))).toBeCloseTo(0.04, 10);
    });

    it("generates on an Azure alias at the deployment's images URL with its api-key", async () => {
      const { response } = await client.images.generate({ model: 'azure-image', prompt: 'azure picture' }).withResponse();
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(0.04, 10);
      const seen = await lastRequestWith(fake, 'azure picture');
      expect(seen.path).toMatch(/^\/azure\/openai\/deployments\/my-image-deployment\/images\/generations\?api-version=/);
      expect(seen.headers['api-key']).toBe('sk-upstream');
    });

    it('generates on a Gemini Imagen alias through :predict, n as sampleCount and size as the nearest aspect ratio, answered as b64_json', async () => {
      const { data, response } = await client.images.generate({ model: 'imagen', prompt: 'imagen skyline', n: 3, size: '1792x1024' }).withResponse();
      expect(data.data).toHaveLength(3);
      expect(data.data?.[0]?.b64_json).toMatch(/^iVBOR/);
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(3 * 0.04, 10);
      const seen = await lastRequestWith(fake, 'imagen skyline');
      expect(seen.path).toBe('/gemini/v1beta/models/imagen-4.0-generate-001:predict');
      expect(seen.json).toEqual({ instances: [{ prompt: 'imagen skyline' }], parameters: { sampleCount: 3, aspectRatio: '16:9' } });
      const urls = await rejectionOf(client.images.generate({ model: 'imagen', prompt: 'x', response_format: 'url' }));
      expect(urls).toBeInstanceOf(BadRequestError);
      expect((urls as BadRequestError).param).toBe('response_format');
    });

    it('edits an uploaded image on OpenAI: the file streamed on in the form, the alias replaced by the model, the spooled upload removed after', async () => {
      const image = await toFile(Buffer.alloc(300_000, 7), 'photo.png', { type: 'image/png' });
      const { data, response } = await client.images.edit({ model: 'gpt-image', image, prompt: 'edit: add a fake hat', quality: 'low', size: '1024x1024' }).withResponse();
      expect(data.data?.[0]?.b64_json).toMatch(/^iVBOR/);
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(0.011, 10);
      const seen = await lastRequestWith(fake, 'edit: add a fake hat');
      expect(seen.path).toBe('/v1/images/edits');
      expect(seen.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(seen.json).toMatchObject({ model: 'gpt-image-1', prompt: 'edit: add a fake hat', image: { filename: 'photo.png', content_type: 'image/png', bytes: 300_000 } });
      expect(await uploadsLeft()).toEqual([]);
    });

    it('edits on an Azure alias as a form to the deployment', async () => {
      const image = await toFile(Buffer.alloc(1000, 1), 'azure.png', { type: 'image/png' });
      await client.images.edit({ model: 'azure-image', image, prompt: 'azure edit' });
      const seen = await lastRequestWith(fake, 'azure edit');
      expect(seen.path).toMatch(/^\/azure\/openai\/deployments\/my-image-deployment\/images\/edits\?api-version=/);
      expect(seen.json).toMatchObject({ model: 'my-image-deployment', image: { bytes: 1000 } });
    });

    it('refuses an upload over AIGW_MAX_UPLOAD_SIZE with 413 and a message naming the limit', async () => {
      const image = await toFile(Buffer.alloc(5 * 1024 * 1024, 1), 'huge.png', { type: 'image/png' });
      const refused = await rejectionOf(client.images.edit({ model: 'gpt-image', image, prompt: 'too big' }));
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
      expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe('request_too_large');
      expect((refused as Error).message).toMatch(/larger than 4 MiB.*AIGW_MAX_UPLOAD_SIZE/);
      expect(await uploadsLeft()).toEqual([]);
    });

    it('removes the spooled part of an upload the client stopped sending, and serves the next call', async () => {
      const boundary = 'stopped-upload';
      const sent = new Promise<void>((resolve) => {
        const upload = http.request(`${gateway.url}/v1/images/edits`, {
          method: 'POST',
          headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(3 * 1024 * 1024) },
        });
        upload.on('error', () => resolve());
        upload.write(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="cut.png"\r\nContent-Type: image/png\r\n\r\n`);
        upload.write(Buffer.alloc(1024 * 1024, 1), () =>
          setTimeout(() => {
            upload.destroy();
            resolve();
          }, 200),
        );
      });
      await sent;
      expect(await uploadsLeft()).toEqual([]);
      const image = await toFile(Buffer.alloc(100, 1), 'next.png', { type: 'image/png' });
      expect((await client.images.edit({ model: 'gpt-image', image, prompt: 'after a cut upload' })).data).toHaveLength(1);
    });

    it('answers variations with a 404 in the envelope saying they are not served', async () => {
      const image = await toFile(Buffer.alloc(100, 1), 'v.png', { type: 'image/png' });
      const refused = await rejectionOf(client.images.createVariation({ model: 'dalle', image }));
      expect(refused).toBeInstanceOf(NotFoundError);
      expect((refused as NotFoundError).code).toBe('not_served');
      expect((refused as Error).message).toMatch(/Image variations are not served/);
    });
  });

  describe('audio', () => {
    const audio = () => toFile(Buffer.alloc(48_000, 3), 'speech.mp3', { type: 'audio/mpeg' });

    it('transcribes as json on Whisper, the alias replaced, priced per second of the duration Whisper reports', async () => {
      const { data, response } = await client.audio.transcriptions.create({ model: 'whisper', file: await audio(), language: 'en' }).withResponse();
      expect(data.text).toBe('fake transcript of speech.mp3');
      // 48 000 bytes: 3 s in the fake; $0.0001 a second.
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(3 * 0.0001, 10);
      const seen = (await fake.requests()).filter((entry) => entry.path === '/v1/audio/transcriptions').at(-1);
      expect(JSON.parse(seen?.body ?? '{}')).toMatchObject({ model: 'whisper-1', language: 'en', file: { filename: 'speech.mp3', bytes: 48_000 } });
    });

    it('answers text, srt and vtt as the upstream wrote them, srt and vtt priced by their last cue, text by its words', async () => {
      const text = await client.audio.transcriptions.create({ model: 'whisper', file: await audio(), response_format: 'text' }).withResponse();
      expect(text.data).toBe('fake transcript of speech.mp3\n');
      // Text tells no duration: 4 words at 150 a minute, 1.6 s.
      expect(Number(text.response.headers.get('x-arbor-response-cost'))).toBeCloseTo(1.6 * 0.0001, 10);
      const srt = await client.audio.transcriptions.create({ model: 'whisper', file: await audio(), response_format: 'srt' }).withResponse();
      expect(srt.data).toBe('1\n00:00:00,000 --> 00:00:03,000\nfake transcript of speech.mp3\n\n');
      expect(Number(srt.response.headers.get('x-arbor-response-cost'))).toBeCloseTo(3 * 0.0001, 10);
      const vtt = await client.audio.transcriptions.create({ model: 'whisper', file: await audio(), response_format: 'vtt' }).withResponse();
      expect(vtt.data).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:03\.000\n/);
      expect(vtt.response.headers.get('content-type')).toMatch(/^text\/vtt/);
      expect(Number(vtt.response.headers.get('x-arbor-response-cost'))).toBeCloseTo(3 * 0.0001, 10);
    });

    it('answers verbose_json with segments and duration, and json on GPT-4o transcribe priced by its token usage', async () => {
      const verbose = await client.audio.transcriptions.create({ model: 'whisper', file: await audio(), response_format: 'verbose_json', timestamp_granularities: ['segment'] });
      expect(verbose).toMatchObject({ duration: 3, language: 'english', segments: [expect.objectContaining({ end: 3 })] });
      const { data, response } = await client.audio.transcriptions.create({ model: 'transcribe', file: await audio() }).withResponse();
      expect(data.usage).toMatchObject({ type: 'tokens', input_tokens: 20, output_tokens: 8 });
      // $6 / $10 a million tokens.
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(20 * 6e-6 + 8 * 10e-6, 10);
    });

    it('streams transcript.text.delta events, then the done event with its usage', async () => {
      const stream = await client.audio.transcriptions.create({ model: 'transcribe', file: await audio(), stream: true });
      const types: string[] = [];
      let text = '';
      let usage: unknown;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'transcript.text.delta') text += event.delta;
        if (event.type === 'transcript.text.done') usage = event.usage;
      }
      expect(text.trim()).toBe('fake transcript of speech.mp3');
      expect(types.at(-1)).toBe('transcript.text.done');
      expect(types.filter((type) => type === 'transcript.text.delta').length).toBeGreaterThan(1);
      expect(usage).toMatchObject({ input_tokens: 20, output_tokens: 8 });
    });

    it("passes the upstream's refusal on (streaming on Whisper) in OpenAI's error class", async () => {
      const refused = await rejectionOf(client.audio.transcriptions.create({ model: 'whisper', file: await audio(), stream: true }));
      expect(refused).toBeInstanceOf(BadRequestError);
      expect((refused as Error).message).toMatch(/Streaming is not supported/);
    });

    it('sends the spooled audio again to the fallback when the first deployment fails', async () => {
      const { data, response } = await client.audio.transcriptions.create({ model: 'whisper-down', file: await audio() }).withResponse();
      expect(data.text).toBe('fake transcript of speech.mp3');
      expect(response.headers.get('x-arbor-attempted-fallbacks')).toBe('1');
      const forms = (await fake.requests())
        .filter((entry) => entry.path === '/v1/audio/transcriptions')
        .slice(-2)
        .map((entry) => JSON.parse(entry.body) as Record<string, unknown>);
      expect(forms.map((form) => form['model'])).toEqual(['fail-503', 'whisper-1']);
      expect(forms.map((form) => (form['file'] as { bytes: number }).bytes)).toEqual([48_000, 48_000]);
      expect(await uploadsLeft()).toEqual([]);
    });

    it('transcribes on an Azure alias as a form to the deployment', async () => {
      const data = await client.audio.transcriptions.create({ model: 'azure-whisper', file: await audio() });
      expect(data.text).toBe('fake transcript of speech.mp3');
      const seen = (await fake.requests()).filter((entry) => entry.path.startsWith('/azure/')).at(-1);
      expect(seen?.path).toMatch(/^\/azure\/openai\/deployments\/my-whisper\/audio\/transcriptions\?api-version=/);
    });

    it('answers translations with a 404 in the envelope saying they are not served', async () => {
      const refused = await rejectionOf(client.audio.translations.create({ model: 'whisper', file: await audio() }));
      expect(refused).toBeInstanceOf(NotFoundError);
      expect((refused as NotFoundError).code).toBe('not_served');
      expect((refused as Error).message).toMatch(/Audio translations are not served/);
    });

    it('streams speech back as binary audio of the asked format, priced per character of the input', async () => {
      const input = 'Hello from a fake voice.';
      const response = await client.audio.speech.create({ model: 'tts', voice: 'alloy', input, response_format: 'opus' });
      expect(response.headers.get('content-type')).toBe('audio/opus');
      let bytes = 0;
      let first: Buffer | undefined;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        first ??= Buffer.from(chunk);
        bytes += chunk.length;
      }
      expect(bytes).toBe(input.length * 200);
      expect(first?.subarray(0, 3).toString()).toBe('ID3');
      const seen = await lastRequestWith(fake, input);
      expect(seen.json).toMatchObject({ model: 'tts-1', voice: 'alloy', input, response_format: 'opus' });
    });

    it('streams a speech answer of megabytes whole, on an Azure alias too', async () => {
      const large = await client.audio.speech.create({ model: 'tts-large', voice: 'alloy', input: 'large' });
      expect((await large.arrayBuffer()).byteLength).toBe(3_000_000);
      const azure = await client.audio.speech.create({ model: 'azure-tts', voice: 'nova', input: 'azure voice' });
      expect(azure.headers.get('content-type')).toBe('audio/mpeg');
      expect((await azure.arrayBuffer()).byteLength).toBe('azure voice'.length * 200);
      const seen = await lastRequestWith(fake, 'azure voice');
      expect(seen.path).toMatch(/^\/azure\/openai\/deployments\/my-tts\/audio\/speech\?api-version=/);
    });
  });

  describe('moderations', () => {
    it('classifies on an OpenAI alias, at no cost', async () => {
      const { data, response } = await client.moderations.create({ model: 'moderation', input: ['a calm sentence', 'fake-violence here'] }).withResponse();
      expect(data.results.map((result) => result.flagged)).toEqual([false, true]);
      expect(data.results[1]?.categories.violence).toBe(true);
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBe(0);
      const seen = await lastRequestWith(fake, 'a calm sentence');
      expect(seen.json).toMatchObject({ model: 'omni-moderation-latest' });
    });

    it('refuses a moderation on an alias of another provider with a clear 400', async () => {
      for (const model of ['claude', 'azure-gpt']) {
        const refused = await rejectionOf(client.moderations.create({ model, input: 'anything' }));
        expect(refused).toBeInstanceOf(BadRequestError);
        expect((refused as Error).message).toMatch(/offers no moderations \(OpenAI aliases only\)/);
        expect((refused as BadRequestError).param).toBe('model');
      }
    });

    it('counts moderations in the metrics', async () => {
      await client.moderations.create({ model: 'moderation', input: 'counted' });
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(metrics).toMatch(/arbor_aigw_requests_total\{[^}]*alias="moderation"[^}]*status="200"[^}]*\} [1-9]/);
    });
  });

  it('answers fine-tuning with a 404 in the envelope saying it is not served', async () => {
    const created = await rejectionOf(client.fineTuning.jobs.create({ model: 'gpt-4o-mini', training_file: 'file-abc' }));
    expect(created).toBeInstanceOf(NotFoundError);
    expect((created as NotFoundError).code).toBe('not_served');
    expect((created as Error).message).toMatch(/Fine-tuning .* not served/);
    expect(await rejectionOf(client.fineTuning.jobs.list())).toBeInstanceOf(NotFoundError);
  });

  it("records a key's spend for each priced call: images, edits, transcriptions, speech; moderations free", async () => {
    const own = await ownKey('images-audio-spend');
    await own.client.images.generate({ model: 'dalle', prompt: 'spend image' });
    await own.client.images.edit({
      model: 'gpt-image',
      image: await toFile(Buffer.alloc(10, 1), 'e.png', { type: 'image/png' }),
      prompt: 'spend edit',
      quality: 'low',
      size: '1024x1024',
    });
    await own.client.audio.transcriptions.create({ model: 'whisper', file: await toFile(Buffer.alloc(32_000, 1), 's.wav', { type: 'audio/wav' }) });
    await (await own.client.audio.speech.create({ model: 'tts', voice: 'alloy', input: 'spend speech' })).arrayBuffer();
    await own.client.moderations.create({ model: 'moderation', input: 'spend moderation' });
    const report = await own.spendAfter(5);
    expect(report?.totals['requests']).toBe(5);
    // dall-e-3 standard $0.04 + gpt-image-1 low square $0.011 + whisper 2 s × $0.0001 + tts-1 12 characters × $0.000015.
    expect(report?.spend).toBeCloseTo(0.04 + 0.011 + 2 * 0.0001 + 'spend speech'.length * 0.000015, 10);
  });

  it('answers a call without a valid key with 401 before anything else', async () => {
    const stranger = new OpenAI({ apiKey: 'sk-arbor-not-a-key', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    expect(await rejectionOf(stranger.images.generate({ model: 'dalle', prompt: 'x' }))).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(await rejectionOf(stranger.fineTuning.jobs.list())).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
