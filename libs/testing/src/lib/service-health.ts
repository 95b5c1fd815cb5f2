import request from 'supertest';
import { expectServedApiReference } from './api-reference';
import { runBuiltApp } from './built-app';
import { createTestDatabase, TestDatabase } from './test-database';

export interface DatabaseBackedService {
  /** The app's folder name under apps/ (and dist/apps/). */
  app: string;
  databaseVariable: string;
  listenVariable: string;
  logVariable: string;
  /**
   * A path the service answers 404 to a caller without credentials; `/nowhere` by default (the AI
   * gateway checks a key before answering an unknown path of its model API, so it names one of its admin API).
   */
  unknownRoute?: string;
  /** Whether it serves an OpenAPI document, and so its API reference page at /api/v1/docs. */
  apiReference?: boolean;
  /** Starts the service in this process with exactly `env`; returns where it listens. */
  start(env: Record<string, string>): Promise<{ url: string; close(): Promise<void> }>;
}

/**
 * What every service that depends on its database promises operators: /healthz while the process
 * lives, /readyz only while the database answers, errors in the envelope, and no start at all
 * without its database setting.
 */
export function describeDatabaseBackedService(service: DatabaseBackedService): void {
  describe(`${service.app} health and start-up`, () => {
    let database: TestDatabase;
    let running: { url: string; close(): Promise<void> };

    beforeAll(async () => {
      database = await createTestDatabase();
      running = await service.start({
        [service.databaseVariable]: database.url,
        [service.listenVariable]: '127.0.0.1:0',
        [service.logVariable]: 'off',
      });
    });

    afterAll(async () => {
      await running?.close();
      await database?.drop();
    });

    it('answers /healthz with the text ok', async () => {
      const response = await request(running.url).get('/healthz');
      expect(response.status).toBe(200);
      expect(response.text).toBe('ok');
    });

    it('answers an unknown route with 404 in the error envelope', async () => {
      const response = await request(running.url)
        .post(service.unknownRoute ?? '/nowhere')
        .send({});
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    });

    if (service.apiReference) {
      it("serves its API reference at /api/v1/docs, everything from itself under the page's strict CSP", async () => {
        await expectServedApiReference(running.url);
      });
    }

    it('is ready while its database answers, and says which dependency failed when it does not', async () => {
      const ready = await request(running.url).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.text).toBe('ok');

      await database.drop();
      const notReady = await request(running.url).get('/readyz');
      expect(notReady.status).toBe(503);
      expect(notReady.body.error.code).toBe('not_ready');
      expect(notReady.body.error.message).toContain('database');
      // /healthz stays up: the process is alive, only a dependency is gone.
      expect((await request(running.url).get('/healthz')).status).toBe(200);
    });

    it(`refuses to start from the built file without ${service.databaseVariable}, naming it`, async () => {
      const result = await runBuiltApp(service.app, { [service.listenVariable]: '127.0.0.1:0' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^ {2}${service.databaseVariable}: is required`, 'm'));
    });
  });
}
