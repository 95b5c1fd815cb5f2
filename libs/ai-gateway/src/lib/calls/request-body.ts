import type { IncomingMessage } from 'node:http';
import { badRequest, requestTooLarge, unsupportedEncoding } from '../gateway-errors';

/** Long contexts and base64 images: chat bodies run to many megabytes (OpenAI accepts 20 MB per image). */
export const MAX_REQUEST_BYTES = 100 * 1024 * 1024;

/**
 * The JSON object a family A call sends, read whole (it is needed whole to route it), refused
 * with 413 once it outgrows `limit` and 400 when it is not a JSON object. Any content type is
 * read as JSON, as OpenAI does.
 */
export function readJsonObject(request: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<Record<string, unknown>> {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') return Promise.reject(unsupportedEncoding(encoding));
  if (Number(request.headers['content-length'] ?? 0) > limit) return Promise.reject(requestTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // The rest is read and dropped, so that the refusal can be sent on this connection.
      request.off('data', onData);
      request.resume();
      reject(requestTooLarge(limit));
    };
    request.on('data', onData);
    request.once('error', reject);
    request.once('end', () => {
      if (size > limit) return;
      try {
        resolve(jsonObject(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function jsonObject(bytes: Buffer): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}
