import { Writable } from 'node:stream';
import { INestApplication, Provider, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { useArborLogger } from '../logging/arbor-logger';
import { ObservabilityModule, ObservabilityOptions } from '../observability.module';

/** Log output captured in memory, as the service would have written it to stdout. */
export class CapturedLog extends Writable {
  private readonly chunks: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk.toString());
    callback();
  }

  text(): string {
    return this.chunks.join('');
  }

  lines(): Record<string, unknown>[] {
    return this.text()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Request log lines are written when the response finishes, which can trail the client by a tick. */
  async waitFor(predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 2000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines().find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no log line matched within ${timeoutMs} ms; got:\n${this.text()}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

export interface ObservedApp {
  app: INestApplication;
  log: CapturedLog;
}

/** A Nest app with ObservabilityModule and the given controllers, logging to memory, as main.ts would wire it. */
export async function startObservedApp(
  options: Partial<ObservabilityOptions> & { controllers?: Type[]; providers?: Provider[]; beforeInit?: (app: INestApplication) => void } = {},
): Promise<ObservedApp> {
  const { controllers = [], providers = [], beforeInit, ...observability } = options;
  const log = new CapturedLog();
  const moduleRef = await Test.createTestingModule({
    imports: [ObservabilityModule.forRoot({ serviceName: 'test-service', logFilter: 'info', logFormat: 'json', destination: log, ...observability })],
    controllers,
    providers,
  }).compile();
  const app = moduleRef.createNestApplication({ bufferLogs: true });
  useArborLogger(app);
  beforeInit?.(app);
  await app.init();
  return { app, log };
}
