import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';

/**
 * A file a client uploaded in a multipart request (an image to edit, audio to transcribe), kept on
 * disk by the gateway while the call lasts: every attempt (retries, fallbacks) streams it to its
 * upstream from there, so that no upload is ever held in memory whole.
 */
export class UploadedFile {
  constructor(
    /** Where the gateway spooled it. */
    readonly path: string,
    readonly filename: string,
    readonly contentType: string,
    readonly size: number,
  ) {}
}

/** A multipart body on its way to an upstream: its content type (with the boundary) and its bytes, made anew for each send. */
export interface MultipartUpload {
  contentType: string;
  /** Known in advance (the files' sizes on disk), so that upstreams that want a length get one. */
  contentLength: number;
  body: () => AsyncIterable<Uint8Array>;
}

/**
 * The fields of a multipart request encoded again for an upstream, in their order, `replace`
 * merged over them (the deployment's model for the alias): text fields as they came, files read
 * from disk in 1 MiB pieces as the upstream takes them.
 */
export function multipartUpload(fields: Record<string, unknown>, replace: Record<string, string> = {}): MultipartUpload {
  const boundary = `----arbor-${randomBytes(12).toString('hex')}`;
  const parts: (string | UploadedFile)[] = [];
  for (const [name, value] of Object.entries({ ...fields, ...replace })) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      if (item instanceof UploadedFile) {
        parts.push(
          `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"; filename="${quoted(item.filename)}"\r\nContent-Type: ${item.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`,
          item,
          '\r\n',
        );
      } else {
        const text = typeof item === 'string' ? item : JSON.stringify(item);
        parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${text}\r\n`);
      }
    }
  }
  parts.push(`--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: parts.reduce((total, part) => total + (typeof part === 'string' ? Buffer.byteLength(part) : part.size), 0),
    body: async function* () {
      for (const part of parts) {
        if (typeof part === 'string') yield Buffer.from(part);
        else yield* createReadStream(part.path, { highWaterMark: 1024 * 1024 });
      }
    },
  };
}

/** A name or file name inside a quoted Content-Disposition parameter (as browsers escape them). */
function quoted(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
