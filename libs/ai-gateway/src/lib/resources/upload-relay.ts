import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Transform, type TransformCallback, type Readable } from 'node:stream';
import { ProviderError } from '@arbor/provider-adapters';
import { badRequest } from '../gateway-errors';
import { type MultipartRead, readMultipartForm } from '../uploads/multipart-reader';

/** OpenAI takes files of up to 512 MB. */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
// The form around the file: its boundaries, part headers and up to 32 fields of 64 KiB.
const MAX_FORM_BYTES = 32 * 64 * 1024 + 64 * 1024;
// A batch input line longer than this is passed on as it is, unread.
const MAX_REWRITTEN_LINE_BYTES = 8 * 1024 * 1024;

const fileTooLarge = () => new ProviderError(413, 'invalid_request_error', `The file is larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB.`, 'file_too_large', 'file');

/** The form fields that arrived before the file, and the file's name and type. */
export interface UploadStart {
  fields: ReadonlyMap<string, string>;
  filename: string;
  mimeType: string;
}

/**
 * A client's multipart upload (`POST /v1/files`) read with the gateway's multipart reader and
 * written again for the upstream as it arrives: the file's bytes are never held whole. Fields the
 * gateway reads (`target_model_names`) are not passed on. Which deployment the file goes to has
 * to be known when the file part begins, so only fields sent before it (and headers) can choose it.
 */
export class UploadRelay {
  readonly boundary = `----arbor-${randomUUID()}`;
  /** The multipart body for the upstream. */
  readonly body = new PassThrough();
  /** Resolves when the file part begins; rejects when the form is bad or has no file. */
  readonly started: Promise<UploadStart>;
  /** Resolves when the client's whole form was read and passed on; rejects with why not. */
  readonly finished: Promise<void>;
  private readonly fields = new Map<string, string>();
  /** Fields after the file, written once the file's last byte is (the rewrite may still hold some). */
  private readonly later: [string, string][] = [];
  private readonly fileDone: Promise<void>;
  private readonly read: MultipartRead;
  private fileEnded!: () => void;
  private fileFailed!: (error: unknown) => void;
  private file: Readable | undefined;
  private fileInfo: { filename: string; mimeType: string } | undefined;
  private lineRewrite: ((line: Buffer) => Buffer) | undefined;

  constructor(
    request: IncomingMessage,
    private readonly hiddenFields: readonly string[],
  ) {
    let start!: (value: UploadStart) => void;
    let refuse!: (error: unknown) => void;
    this.started = new Promise((resolve, reject) => ((start = resolve), (refuse = reject)));
    let finish!: () => void;
    let fail!: (error: unknown) => void;
    this.finished = new Promise((resolve, reject) => ((finish = resolve), (fail = reject)));
    this.finished.catch(() => undefined);
    this.started.catch(() => undefined);
    this.fileDone = new Promise((resolve, reject) => ((this.fileEnded = resolve), (this.fileFailed = reject)));
    this.fileDone.catch(() => undefined);
    // The upstream request reports a torn body its own way; unheard, the error would end the process.
    this.body.on('error', () => undefined);
    const failed = (error: unknown) => {
      refuse(error);
      fail(error);
      this.body.destroy(error instanceof Error ? error : new Error(String(error)));
      this.read.fail(error);
    };
    this.read = readMultipartForm(
      request,
      { bytes: MAX_UPLOAD_BYTES + MAX_FORM_BYTES, fileBytes: MAX_UPLOAD_BYTES, tooLarge: fileTooLarge, files: 1, fields: 32, fieldBytes: 64 * 1024 },
      {
        field: (name, value) => {
          if (this.file) this.later.push([name, value]);
          else this.fields.set(name, value);
        },
        file: (name, stream, info) => {
          if (name !== 'file') return void stream.resume();
          this.file = stream;
          this.fileInfo = { filename: info.filename || 'upload', mimeType: info.mimeType };
          start({ fields: this.fields, filename: this.fileInfo.filename, mimeType: this.fileInfo.mimeType });
        },
      },
    );
    this.read.done.then(() => {
      if (!this.file) return failed(badRequest('The upload has no file field.', 'file'));
      this.fileDone.then(() => {
        for (const [name, value] of this.later) this.writeField(name, value);
        this.body.end(`--${this.boundary}--\r\n`);
        finish();
      }, failed);
    }, failed);
  }

  /**
   * Begins passing the form on: the fields sent so far, then the file as it arrives (each line of
   * a batch input rewritten by `rewriteLine` when given), then any fields after it.
   */
  begin(rewriteLine?: (line: Buffer) => Buffer): void {
    this.lineRewrite = rewriteLine;
    for (const [name, value] of this.fields) this.writeField(name, value);
    const file = this.file as Readable;
    const info = this.fileInfo as { filename: string; mimeType: string };
    this.body.write(`--${this.boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(info.filename)}"\r\nContent-Type: ${info.mimeType}\r\n\r\n`);
    const source = this.lineRewrite ? file.pipe(new LineRewrite(this.lineRewrite)) : file;
    source.once('end', () => {
      this.body.write('\r\n');
      this.fileEnded();
    });
    source.once('error', (error) => this.fileFailed(error));
    source.pipe(this.body, { end: false });
  }

  /** Stops relaying (the upload was refused): the rest of the client's form is read and dropped. */
  abandon(): void {
    this.body.destroy();
    this.file?.resume();
    this.read.fail(new Error('upload abandoned'));
  }

  private writeField(name: string, value: string): void {
    if (this.hiddenFields.includes(name)) return;
    this.body.write(`--${this.boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`);
  }
}

function quoted(value: string): string {
  return value.replace(/["\r\n\\]/g, '_');
}

/** Splits bytes into lines and passes each through `rewrite` (newlines kept); an overlong line goes on unread. */
class LineRewrite extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;

  constructor(private readonly rewrite: (line: Buffer) => Buffer) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let from = 0;
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, at + 1);
      from = at + 1;
      if (this.skipping) {
        this.push(piece);
        this.skipping = false;
        continue;
      }
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      this.push(this.rewrite(line));
    }
    const rest = chunk.subarray(from);
    if (rest.length === 0) return callback();
    if (this.skipping) {
      this.push(rest);
    } else if (this.pendingBytes + rest.length > MAX_REWRITTEN_LINE_BYTES) {
      for (const part of this.pending) this.push(part);
      this.push(rest);
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
    } else {
      this.pending.push(Buffer.from(rest));
      this.pendingBytes += rest.length;
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.pending.length > 0) this.push(this.rewrite(Buffer.concat(this.pending)));
    callback();
  }
}

/**
 * A batch input line (`{"custom_id":…,"body":{"model":"<alias>",…}}`) with the alias replaced by
 * the deployment's model name, as the upstream wants it; any other line unchanged.
 */
export function batchLineModel(alias: string, model: string): (line: Buffer) => Buffer {
  const marker = Buffer.from(JSON.stringify(alias));
  return (line) => {
    if (line[0] !== 0x7b || !line.includes(marker)) return line;
    const newline = line.at(-1) === 0x0a ? (line.at(-2) === 0x0d ? '\r\n' : '\n') : '';
    try {
      const parsed = JSON.parse(line.toString('utf8')) as { custom_id?: unknown; body?: { model?: unknown } };
      if (typeof parsed.custom_id !== 'string' || parsed.body?.model !== alias) return line;
      parsed.body.model = model;
      return Buffer.from(JSON.stringify(parsed) + newline);
    } catch {
      return line;
    }
  };
}
