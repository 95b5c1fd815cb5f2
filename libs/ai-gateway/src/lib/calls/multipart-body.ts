import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UploadedFile } from '@arbor/provider-adapters';
import { uploadTooLarge } from '../gateway-errors';
import { readMultipartForm } from '../uploads/multipart-reader';

// Text fields are parameters (a prompt, a language), never data: a megabyte is far beyond any of them.
const MAX_FIELD_BYTES = 1024 * 1024;
const MAX_PARTS = 256;
// Spool files are written in pieces of this size, as the reader hands them over.
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
 * Reads a multipart/form-data request with the gateway's multipart reader: text fields into the
 * body, each file streamed to a file of its own in `directory` (memory holds one piece at a time,
 * whatever the upload's size), so that the `model` field can be read wherever it comes (the SDKs
 * send the file first) and every attempt of the call can send the file again. More than `limit`
 * bytes in all is a 413; every other bad form a 400 (the reader's refusals).
 */
export async function readMultipart(request: IncomingMessage, limit: number, directory = tmpdir()): Promise<MultipartBody> {
  const body: Record<string, unknown> = {};
  const add = (name: string, value: unknown) => {
    const earlier = body[name];
    body[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
  };
  const spooled: Spooled[] = [];
  // Each file once its writing has stopped (ended, or destroyed with a refused request), so that
  // none is created after its removal.
  const discard = async () => {
    await Promise.all(
      spooled.map(({ file, written }) =>
        written
          .then(undefined, () => undefined)
          .then(() => unlink(file))
          .catch(() => undefined),
      ),
    );
  };
  const read = readMultipartForm(
    request,
    { bytes: limit, tooLarge: () => uploadTooLarge(limit), fieldBytes: MAX_FIELD_BYTES, parts: MAX_PARTS },
    {
      field: add,
      file: (name, stream, info) => {
        const file = path.join(directory, `arbor-upload-${randomUUID()}`);
        let size = 0;
        stream.on('data', (chunk: Buffer) => (size += chunk.length));
        const written = pipeline(stream, createWriteStream(file, { highWaterMark: PIECE_BYTES })).then(() => {
          add(name, new UploadedFile(file, info.filename || 'upload', info.mimeType || 'application/octet-stream', size));
        });
        written.catch((error: unknown) => read.fail(error));
        spooled.push({ file, written });
      },
    },
  );
  try {
    await read.done;
    await Promise.all(spooled.map(({ written }) => written));
    return { body, discard };
  } catch (error) {
    read.fail(error);
    await discard();
    throw error;
  }
}
