import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { multipartUpload, UploadedFile } from './uploaded-file';

async function bytesOf(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe('a multipart upload encoded again for an upstream', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'uploaded-file-spec-'));
  const file = path.join(directory, 'audio');
  writeFileSync(file, Buffer.alloc(3 * 1024 * 1024 + 7, 9));
  const audio = new UploadedFile(file, 'speech.mp3', 'audio/mpeg', 3 * 1024 * 1024 + 7);

  it('sends the text fields and the file from disk, the model replaced, in exactly the announced length', async () => {
    const upload = multipartUpload({ file: audio, model: 'whisper', 'timestamp_granularities[]': ['word', 'segment'] }, { model: 'whisper-1' });
    const boundary = /boundary=(.+)$/.exec(upload.contentType)?.[1] ?? '';
    const bytes = await bytesOf(upload.body());
    expect(bytes.length).toBe(upload.contentLength);
    const text = bytes.toString('latin1');
    expect(text).toContain(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="speech.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`);
    expect(text).toContain('name="model"\r\n\r\nwhisper-1\r\n');
    expect(text).not.toContain('\r\n\r\nwhisper\r\n');
    expect(text.match(/name="timestamp_granularities\[\]"/g)).toHaveLength(2);
    expect(text.endsWith(`--${boundary}--\r\n`)).toBe(true);
  });

  it('makes the body anew for each send (a resend or a fallback reads the file again)', async () => {
    const upload = multipartUpload({ file: audio });
    expect((await bytesOf(upload.body())).equals(await bytesOf(upload.body()))).toBe(true);
  });

  it('keeps quotes and line breaks of names out of the part headers', async () => {
    const upload = multipartUpload({ file: new UploadedFile(file, 'a"b\r\nc.mp3', 'audio/mpeg\r\nX-Evil: 1', audio.size) });
    const head = (await bytesOf(upload.body())).subarray(0, 300).toString('latin1');
    expect(head).toContain('filename="a%22b%0D%0Ac.mp3"');
    expect(head).toContain('Content-Type: audio/mpegX-Evil: 1\r\n');
  });
});
