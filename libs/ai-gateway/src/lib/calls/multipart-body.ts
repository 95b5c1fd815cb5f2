import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UploadedFile } from '@arbor/provider-adapters';
import { badRequest, unsupportedEncoding, uploadTooLarge } from '../gateway-errors';

// Text fields are parameters (a prompt, a language), never data: a megabyte is far beyond any of them.
const MAX_FIELD_BYTES = 1024 * 1024;
const MAX_PARTS = 256;
// Uploads move in pieces of this size (the streams' defaults of 16 to 64 KiB cost several times the CPU a megabyte).
const PIECE_BYTES = 1024 * 1024;

/** A file being written to the spool, and when its writing stops. */
interface Spooled {
  file: string;
  written: Promise<void>;
}

/** A multipart request read: its text fields and spooled files as one body, and the files' removal. */
export interface MultipartBody {
  /** Text fields as strings, files as UploadedFiles; a name sent more than once (`image[]`) as a list. */
  body: Record<string, unknown>;
  /** Removes the spooled files (when the call is over). */
  discard(): Promise<void>;
}

/**
 * Reads a multipart/form-data request with busboy: text fields into the body, each file streamed
 * to a file of its own in `directory` (memory holds one piece at a time, whatever the upload's
 * size), so that the `model` field can be read wherever it comes (the SDKs send the file first)
 * and every attempt of the call can send the file again. More than `limit` bytes in all is a
 * 413 (announced by content-length: refused unread; else the rest is read and dropped, so that
 * the refusal can be answered on the connection).
 */
export async function readMultipart(request: IncomingMessage, limit: number, directory = tmpdir()): Promise<MultipartBody> {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    request.resume();
    throw unsupportedEncoding(encoding);
  }
  if (!/^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '')) {
    request.resume();
    throw badRequest('This endpoint takes multipart/form-data (a file and its parameters as form fields).');
  }
  if (Number(request.headers['content-length'] ?? 0) > limit) {
    request.resume();
    throw uploadTooLarge(limit);
  }
  const spooled: Spooled[] = [];
  // Each file once its writing has stopped (ended, or destroyed with a refused request), so that
  // none is created after its removal.
  const discard = async () => {
    await Promise.all(spooled.map(({ file, written }) => written.then(undefined, () => undefined).then(() => unlink(file)).catch(() => undefined)));
  };
  try {
    return { body: await parse(request, limit, directory, spooled), discard };
  } catch (error) {
    await discard();
    throw error;
  }
}

function parse(request: IncomingMessage, limit: number, directory: string, spooled: Spooled[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const body: Record<string, unknown> = {};
    const add = (name: string, value: unknown) => {
      const earlier = body[name];
      body[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, highWaterMark: PIECE_BYTES, fileHwm: PIECE_BYTES, limits: { fieldSize: MAX_FIELD_BYTES, parts: MAX_PARTS, fileSize: limit } });
    } catch (error) {
      request.resume();
      return reject(badRequest(`The multipart request cannot be read: ${(error as Error).message}.`));
    }
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      request.unpipe(parser);
      // Ends the file being written (its spool file is then removed).
      parser.destroy();
      request.resume(); // the rest is read and dropped: the refusal still reaches the client
      reject(error);
    };
    let received = 0;
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) fail(uploadTooLarge(limit));
    });
    request.once('close', () => {
      if (!request.complete) fail(badRequest('The client stopped sending its upload.'));
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(badRequest(`The form field "${name.slice(0, 64)}" is longer than ${MAX_FIELD_BYTES} bytes.`, name));
      add(name, value);
    });
    parser.on('file', (name, stream, info) => {
      const file = path.join(directory, `arbor-upload-${randomUUID()}`);
      let size = 0;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.once('limit', () => fail(uploadTooLarge(limit)));
      const written = pipeline(stream, createWriteStream(file, { highWaterMark: PIECE_BYTES })).then(() => {
        const upload = new UploadedFile(file, info.filename || 'upload', info.mimeType || 'application/octet-stream', size);
        add(name, upload);
      });
      written.catch(fail);
      spooled.push({ file, written });
    });
    parser.once('partsLimit', () => fail(badRequest(`The multipart request has more than ${MAX_PARTS} parts.`)));
    parser.once('error', (error: Error) => fail(badRequest(`The multipart request cannot be read: ${error.message}.`)));
    parser.once('close', () => {
      Promise.all(spooled.map(({ written }) => written)).then(
        () => (failed ? undefined : resolve(body)),
        (error: unknown) => fail(error),
      );
    });
    request.pipe(parser);
  });
}
