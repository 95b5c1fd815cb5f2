// Test-only: what the service writes to standard output. Its logger writes with fs.write on fd 1
// (pino's asynchronous destination; fs.writeSync when it flushes synchronously), which
// process.stdout spies would not see.
import fs from 'node:fs';

export interface CapturedStdout {
  text(): string;
  /** Stops capturing; later output goes to the terminal again. */
  restore(): void;
}

/** Captures (and silences) everything written to fd 1 or process.stdout until restore(). */
export function captureStdout(): CapturedStdout {
  const chunks: string[] = [];
  const keep = (data: unknown) => chunks.push(typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('utf8'));
  const realWriteSync = fs.writeSync;
  const writeSync = jest.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd !== 1) return (realWriteSync as (...args: unknown[]) => number)(fd, data, ...rest);
    keep(data);
    return typeof data === 'string' ? Buffer.byteLength(data) : (data as Uint8Array).byteLength;
  }) as typeof fs.writeSync);
  const realWrite = fs.write;
  const fsWrite = jest.spyOn(fs, 'write').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd !== 1) return (realWrite as (...args: unknown[]) => void)(fd, data, ...rest);
    keep(data);
    const done = rest[rest.length - 1] as (error: null, written: number) => void;
    process.nextTick(done, null, typeof data === 'string' ? Buffer.byteLength(data) : (data as Uint8Array).byteLength);
  }) as typeof fs.write);
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(((data: unknown) => {
    keep(data);
    return true;
  }) as typeof process.stdout.write);
  return {
    text: () => chunks.join(''),
    restore: () => {
      writeSync.mockRestore();
      fsWrite.mockRestore();
      write.mockRestore();
    },
  };
}
