import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { ProviderError } from '@arbor/provider-adapters';
import { readMultipartForm, type MultipartLimits } from './multipart-reader';

const LIMITS: MultipartLimits = { bytes: 64 * 1024, tooLarge: () => new ProviderError(413, 'invalid_request_error', 'too large', 'request_too_large'), fieldBytes: 1024, parts: 8 };

/** A request whose body is `body`, sent whole. */
function requestOf(body: string | Buffer, headers: Record<string, string> = {}): IncomingMessage {
  const request = Readable.from([Buffer.from(body as string, typeof body === 'string' ? 'latin1' : undefined)]) as unknown as IncomingMessage;
  Object.assign(request, { headers: { 'content-type': 'multipart/form-data; boundary=B', ...headers }, complete: true });
  return request;
}

const part = (headers: string, content = 'x') => `--B\r\n${headers}\r\n\r\n${content}\r\n`;
const form = (...parts: string[]) => `${parts.join('')}--B--\r\n`;

/** What reading `request` gave: the parts seen, or the refusal (its status, code and message). */
async function read(request: IncomingMessage, limits = LIMITS) {
  const fields: Record<string, string> = {};
  const files: Record<string, string> = {};
  const reading = readMultipartForm(request, limits, {
    field: (name, value) => (fields[name] = value),
    file: (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => (files[name] = `${info.filename}:${Buffer.concat(chunks).toString()}`));
    },
  });
  try {
    await reading.done;
    return { fields, files };
  } catch (error) {
    const refused = error as ProviderError;
    return { status: refused.status, code: refused.code, message: refused.message };
  }
}

describe('the multipart reader', () => {
  it('hands over the fields and files of a good form', async () => {
    const body = form(part('Content-Disposition: form-data; name="prompt"', 'a hat'), part('Content-Disposition: form-data; name="image"; filename="a.png"', 'png bytes'));
    expect(await read(requestOf(body))).toEqual({ fields: { prompt: 'a hat' }, files: { image: 'a.png:png bytes' } });
  });

  describe('refuses a hostile part header with one 400, and nothing else is thrown', () => {
    const hostile = {
      'a NUL in the file name': 'Content-Disposition: form-data; name="image"; filename="a\x00b.png"',
      'a NUL in the field name': 'Content-Disposition: form-data; name="im\x00age"',
      'a header line without a colon': 'Content-Disposition: form-data; name="image"\r\nno colon here',
      'a 100 kB part header': `Content-Disposition: form-data; name="image"\r\nX-Padding: ${'a'.repeat(100_000)}`,
    };
    const uncaught: unknown[] = [];
    const listen = (error: unknown) => uncaught.push(error);
    beforeEach(() => process.on('uncaughtException', listen));
    afterEach(() => process.off('uncaughtException', listen));

    it.each(Object.entries(hostile))('%s', async (_name, headers) => {
      const refused = await read(requestOf(form(part(headers))), { ...LIMITS, bytes: 1024 * 1024 });
      expect(refused).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/^The multipart request cannot be read: Malformed part header/) });
      // Destroying busboy after its first error makes it emit a second one: it must be heard.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(uncaught).toEqual([]);
    });
  });

  it('refuses a NUL in a file name that busboy decodes (RFC 5987 filename*) as a 400 naming it', async () => {
    const refused = await read(requestOf(form(part(`Content-Disposition: form-data; name="image"; filename*=utf-8''a%00b.png`))));
    expect(refused).toMatchObject({ status: 400, message: 'Invalid multipart file name "a\\u0000b.png": it must not contain the NUL character (U+0000).' });
  });

  it('refuses an announced length over the limit before reading a byte', async () => {
    // A body that never comes: the refusal cannot wait for it.
    const request = new Readable({ read: () => undefined }) as unknown as IncomingMessage;
    Object.assign(request, { headers: { 'content-type': 'multipart/form-data; boundary=B', 'content-length': String(LIMITS.bytes + 1) }, complete: false });
    expect(await read(request)).toMatchObject({ status: 413, code: 'request_too_large' });
  });

  it('refuses a body that outgrows the limit while read with 413', async () => {
    const big = form(part('Content-Disposition: form-data; name="image"; filename="big.bin"', 'y'.repeat(LIMITS.bytes + 10)));
    expect(await read(requestOf(big))).toMatchObject({ status: 413 });
  });

  it('refuses a field longer than the limit, a form of too many parts and a request that is not a form with 400', async () => {
    expect(await read(requestOf(form(part('Content-Disposition: form-data; name="prompt"', 'z'.repeat(2000)))))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/"prompt" is longer than 1024 bytes/),
    });
    const many = form(...Array.from({ length: 9 }, (_, index) => part(`Content-Disposition: form-data; name="f${index}"`)));
    expect(await read(requestOf(many))).toMatchObject({ status: 400, message: expect.stringMatching(/more than 8 parts/) });
    expect(await read(requestOf('{}', { 'content-type': 'application/json' }))).toMatchObject({ status: 400, message: expect.stringMatching(/multipart\/form-data/) });
    expect(await read(requestOf('x', { 'content-type': 'multipart/form-data; nothing=here' }))).toMatchObject({ status: 400, message: expect.stringMatching(/cannot be read/) });
  });

  it('refuses a form cut off before its end with one 400', async () => {
    expect(await read(requestOf(part('Content-Disposition: form-data; name="image"; filename="cut.png"', 'half')))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/Unexpected end of form/),
    });
  });
});
