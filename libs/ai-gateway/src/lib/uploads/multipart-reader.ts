import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { excerpt, textProblem } from '@arbor/platform';
import type { ProviderError } from '@arbor/provider-adapters';
import { badRequest, unsupportedEncoding } from '../gateway-errors';

// Uploads move in pieces of this size (the streams' defaults of 16 to 64 KiB cost several times the CPU a megabyte).
const PIECE_BYTES = 1024 * 1024;

/** What one upload route accepts in a multipart request. */
export interface MultipartLimits {
  /** The whole request: announced beyond it, refused unread; read beyond it, refused. */
  bytes: number;
  /** The largest file part (`bytes` unless given). */
  fileBytes?: number;
  /** The refusal of a request over `bytes` (413, in the route's words). */
  tooLarge: () => ProviderError;
  /** The longest text field, in bytes. */
  fieldBytes: number;
  parts?: number;
  files?: number;
  fields?: number;
}

/** What a route does with the parts as they arrive (in the order sent). */
export interface MultipartParts {
  field(name: string, value: string): void;
  /** A file part: `stream` must be read to its end (or resumed) for the form to be read on. */
  file(name: string, stream: Readable, info: { filename: string; mimeType: string }): void;
}

/** A multipart request being read. */
export interface MultipartRead {
  /** Resolves once the whole form was read and each file part read to its end; rejects once, with the refusal. */
  readonly done: Promise<void>;
  /** Stops reading with `error` (a consumer's refusal, or its upstream gone): the rest of the request is read and dropped. */
  fail(error: unknown): void;
}

/**
 * The gateway's one reader of multipart/form-data requests (image edits, transcriptions, file
 * uploads), over busboy: the request's encoding, type and announced length checked before any
 * byte is read, then every part handed to `parts` as it arrives. Every way a form can be bad
 * (malformed or oversized part headers, a part name or file name that is not storable text, too
 * many parts, a field or the whole request too large, a client that stops sending) ends in ONE
 * rejection of `done` with a 400 (413 for size), never in an error nobody hears: busboy emits a
 * second error when it is destroyed after its first, so its listeners stay attached for good.
 */
export function readMultipartForm(request: IncomingMessage, limits: MultipartLimits, parts: MultipartParts): MultipartRead {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((resolved, rejected) => ((resolve = resolved), (reject = rejected)));
  // A consumer may stop listening once it has failed the read itself.
  done.catch(() => undefined);
  let failed = false;
  let parser: busboy.Busboy | undefined;
  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    if (parser) {
      request.unpipe(parser);
      // Ends the file part being read (its consumer sees the stream fail).
      parser.destroy();
    }
    request.resume(); // the rest is read and dropped: the refusal still reaches the client
    reject(error);
  };

  const refused = refusedUnread(request, limits);
  if (refused) {
    fail(refused);
    return { done, fail };
  }
  try {
    parser = busboy({
      headers: request.headers,
      highWaterMark: PIECE_BYTES,
      fileHwm: PIECE_BYTES,
      limits: { fileSize: limits.fileBytes ?? limits.bytes, fieldSize: limits.fieldBytes, parts: limits.parts, files: limits.files, fields: limits.fields },
    });
  } catch (error) {
    fail(badRequest(`The multipart request cannot be read: ${excerpt((error as Error).message)}.`));
    return { done, fail };
  }

  let received = 0;
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.bytes) fail(limits.tooLarge());
  });
  const stopped = () => fail(badRequest('The client stopped sending its upload.'));
  request.on('error', stopped);
  request.once('close', () => {
    if (!request.complete) stopped();
  });

  parser.on('error', (error: Error) => fail(badRequest(`The multipart request cannot be read: ${excerpt(error.message)}.`)));
  parser.on('field', (name, value, info) => {
    if (failed) return;
    const refusal =
      nameRefusal(name) ?? (info.valueTruncated ? badRequest(`The form field "${excerpt(name)}" is longer than ${limits.fieldBytes} bytes.`, excerpt(name)) : undefined);
    if (refusal) return fail(refusal);
    parts.field(name, value);
  });
  parser.on('file', (name, stream, info) => {
    // Its errors are the parser's (destroyed with it), reported once through `done`.
    stream.on('error', () => undefined);
    if (failed) return void stream.resume();
    const refusal = nameRefusal(name) ?? nameRefusal(info.filename ?? '', 'file name');
    if (refusal) {
      stream.resume();
      return fail(refusal);
    }
    stream.once('limit', () => fail(limits.tooLarge()));
    parts.file(name, stream, { filename: info.filename ?? '', mimeType: info.mimeType });
  });
  parser.on('partsLimit', () => fail(badRequest(`The multipart request has more than ${limits.parts} parts.`)));
  parser.on('filesLimit', () => fail(badRequest(`Send at most ${limits.files} file${limits.files === 1 ? '' : 's'} in one request.`, 'file')));
  parser.on('fieldsLimit', () => fail(badRequest(`The multipart request has more than ${limits.fields} form fields.`)));
  parser.once('finish', () => {
    if (!failed) resolve();
  });
  request.pipe(parser);
  return { done, fail };
}

/** Why the request is refused before its body is read (not a form, compressed, announced too large). */
function refusedUnread(request: IncomingMessage, limits: MultipartLimits): ProviderError | undefined {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return unsupportedEncoding(encoding);
  if (!/^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '')) {
    return badRequest('This endpoint takes multipart/form-data (a file and its parameters as form fields).');
  }
  if (Number(request.headers['content-length'] ?? 0) > limits.bytes) return limits.tooLarge();
  return undefined;
}

/** Part names and file names are stored and sent on: they hold storable text (the suite's input rules). */
function nameRefusal(name: string, what = 'part name'): ProviderError | undefined {
  const problem = textProblem(name);
  return problem === undefined ? undefined : badRequest(`Invalid multipart ${what} "${excerpt(name)}": it ${problem}.`, what === 'file name' ? 'file' : excerpt(name));
}
