import { startService, RunningService } from '@arbor/platform';
import { SyncDispatcherConfig } from '@arbor/config';
import { createTestDatabase, runBuiltApp, TestDatabase } from '@arbor/testing';
import request from 'supertest';
import { syncDispatcherService } from './sync-dispatcher.module';

describe('sync-dispatcher service', () => {
  let database: TestDatabase;
  let service: RunningService<SyncDispatcherConfig>;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startService(syncDispatcherService, { CP_DATABASE_URL: database.url, CP_DISPATCHER_LISTEN_ADDR: '127.0.0.1:0', LOG_FORMAT: 'json', CP_LOG: 'off' });
  });

  afterAll(async () => {
    await service?.close();
    await database?.drop();
  });

  it('answers /healthz with the text ok', async () => {
    const response = await request(service.url).get('/healthz');
    expect(response.status).toBe(200);
    expect(response.text).toBe('ok');
  });

  it('is ready while its database answers, and says which dependency failed when it does not', async () => {
    const ready = await request(service.url).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.text).toBe('ok');

    await database.drop();
    const notReady = await request(service.url).get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body.error.code).toBe('not_ready');
    expect(notReady.body.error.message).toContain('database');
    // /healthz stays up: the process is alive, only a dependency is gone.
    expect((await request(service.url).get('/healthz')).status).toBe(200);
  });

  it('answers an unknown route with 404 in the error envelope', async () => {
    const response = await request(service.url).post('/nowhere').send({});
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });

  it('refuses to start from the built file without CP_DATABASE_URL, naming it', async () => {
    const result = await runBuiltApp('sync-dispatcher', { CP_DISPATCHER_LISTEN_ADDR: '127.0.0.1:0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ {2}CP_DATABASE_URL: is required/m);
  });
});
