/**
 * Where a call's answer goes: an HTTP response, or a collector (a background run, a WebSocket turn)
 * that behaves as one for the pipeline's purposes.
 */
export interface CallResponse extends NodeJS.EventEmitter {
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
  writeHead(status: number, headers?: Record<string, number | string | string[]>): this;
  write(chunk: string | Buffer): boolean;
  end(chunk?: string | Buffer): unknown;
  addTrailers(trailers: Record<string, string>): void;
  /** Breaks the answer off (a byte stream that failed has no error event to end it with). */
  destroy?(error?: Error): unknown;
}
