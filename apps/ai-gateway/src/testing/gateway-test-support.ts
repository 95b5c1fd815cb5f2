// Test-only: the fake upstreams, a gateway config file of the test's own, and the gateway itself.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { AiGatewayConfig } from '@arbor/config';
import { RunningService, startService } from '@arbor/platform';
import { startFakeProviders, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from '../ai-gateway.module';

export const MASTER_KEY = 'sk-arbor-test-master';

/** tools/fake-providers on a free port, as its own process. */
export const startFake = startFakeProviders;

/** Writes an AIGW_CONFIG file in a fresh temporary directory and returns its path. */
export function writeConfig(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'aigw-')), 'config.yaml');
  writeFileSync(file, text);
  return file;
}

/** The gateway in process on a free port, with the test master key and `configFile`; `env` adds or overrides settings. */
export function startTestGateway(database: TestDatabase, configFile: string, env: Record<string, string> = {}): Promise<RunningService<AiGatewayConfig>> {
  return startService(aiGatewayService, {
    AIGW_DATABASE_URL: database.url,
    AIGW_LISTEN_ADDR: '127.0.0.1:0',
    AIGW_LOG: 'off',
    AIGW_CONFIG: configFile,
    AIGW_MASTER_KEY: MASTER_KEY,
    ...env,
  });
}

/** The official SDK as an application would use it, with the master key and no retries of its own. */
export function sdkClient(gateway: { url: string }, apiKey = MASTER_KEY): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
}
