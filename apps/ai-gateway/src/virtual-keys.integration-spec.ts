// Virtual keys as clients and operators meet them: the official OpenAI SDK with a key the admin
// API (/api/v1/keys, master key only) created, the gateway against tools/fake-providers.
import { createHash } from 'node:crypto';
import OpenAI, { AuthenticationError, PermissionDeniedError } from 'openai';
import { Client } from 'pg';
import request from 'supertest';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { MASTER_KEY, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, fakeUrl: string) => `
  - model_name: ${alias}
    litellm_params:
      model: openai/${model}
      api_base: ${fakeUrl}/v1
      api_key: os.environ/AIGW_TEST_UPSTREAM_KEY`;

interface KeyBody {
  id: string;
  key?: string;
  key_hint: string;
  project: string;
  aliases: string[];
  blocked: boolean;
}

describe('ai-gateway virtual keys', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;

  const admin = () => request(gateway.url);
  const asMaster = { authorization: `Bearer ${MASTER_KEY}` };
  const clientFor = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const chat = (apiKey: string, model: string) => clientFor(apiKey).chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });

  const createKey = async (body: Record<string, unknown>): Promise<KeyBody & { key: string }> => {
    const response = await admin().post('/api/v1/keys').set(asMaster).send(body).expect(201);
    return response.body as KeyBody & { key: string };
  };

  const refusal = async (call: Promise<unknown>): Promise<unknown> =>
    call.then(
      () => new Error('the call succeeded'),
      (error: unknown) => error,
    );

  beforeAll(async () => {
    process.env['AIGW_TEST_UPSTREAM_KEY'] = 'sk-upstream-secret';
    fake = await startFake();
    database = await createTestDatabase();
    const config = writeConfig(`model_list:${[deployment('fast', 'gpt-4o-mini', fake.url), deployment('smart', 'gpt-4o', fake.url)].join('')}\n`);
    gateway = await startTestGateway(database, config);
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('creates a key shown once that works for its alias, in Bearer and in x-api-key', async () => {
    const created = await createKey({ project: 'alpha', aliases: ['fast'], metadata: { team: 'search' }, rpm_limit: 60 });
    expect(created.key).toMatch(/^sk-arbor-[A-Za-z0-9_-]{43}$/);
    expect(created.key_hint).toBe(`sk-arbor-…${created.key.slice(-4)}`);
    expect(created).toMatchObject({ project: 'alpha', aliases: ['fast'], blocked: false, metadata: { team: 'search' }, rpm_limit: 60 });

    const answer = await chat(created.key, 'fast');
    expect(answer.choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
    const viaHeader = await admin()
      .post('/v1/chat/completions')
      .set('x-api-key', created.key)
      .send({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(viaHeader.status).toBe(200);

    // Never shown again: not in the list, not in the key's own page.
    const listed = await admin().get('/api/v1/keys').set(asMaster).expect(200);
    const mine = (listed.body as { keys: KeyBody[] }).keys.find((key) => key.id === created.id);
    expect(mine).toMatchObject({ key_hint: created.key_hint, project: 'alpha' });
    expect(mine).not.toHaveProperty('key');
    expect(JSON.stringify(listed.body)).not.toContain(created.key);
    const one = await admin().get(`/api/v1/keys/${created.id}`).set(asMaster).expect(200);
    expect(one.body).not.toHaveProperty('key');
    expect(one.body).toMatchObject({ id: created.id, aliases: ['fast'] });
  });

  it('refuses an alias the key may not call with PermissionDeniedError key_model_access_denied', async () => {
    const { key } = await createKey({ project: 'alpha', aliases: ['fast'] });
    const error = await refusal(chat(key, 'smart'));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).status).toBe(403);
    expect((error as PermissionDeniedError).code).toBe('key_model_access_denied');
    // A key with no aliases may call every alias.
    const { key: open } = await createKey({ project: 'alpha' });
    expect((await chat(open, 'smart')).choices[0]?.message.content).toBe('fake answer from gpt-4o');
  });

  it("lists only the key's aliases in /v1/models; the master key sees all", async () => {
    const { key } = await createKey({ project: 'alpha', aliases: ['smart'] });
    const models = await clientFor(key).models.list();
    expect(models.data.map((model) => model.id)).toEqual(['smart']);
    await expect(clientFor(key).models.retrieve('fast')).rejects.toMatchObject({ status: 404 });
    expect((await clientFor(key).models.retrieve('smart')).id).toBe('smart');
    const all = await clientFor(MASTER_KEY).models.list();
    expect(all.data.map((model) => model.id).sort()).toEqual(['fast', 'smart']);
  });

  it('refuses unknown, blocked, expired and deleted keys with AuthenticationError', async () => {
    expect(await refusal(chat('sk-arbor-not-a-key', 'fast'))).toBeInstanceOf(AuthenticationError);

    const blocked = await createKey({ project: 'alpha' });
    await chat(blocked.key, 'fast'); // cached now: blocking must evict it
    await admin().post(`/api/v1/keys/${blocked.id}/block`).set(asMaster).expect(200);
    expect(await refusal(chat(blocked.key, 'fast'))).toBeInstanceOf(AuthenticationError);
    await admin().post(`/api/v1/keys/${blocked.id}/unblock`).set(asMaster).expect(200);
    await chat(blocked.key, 'fast');

    const expired = await createKey({ project: 'alpha', expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(await refusal(chat(expired.key, 'fast'))).toBeInstanceOf(AuthenticationError);
    const expiring = await createKey({ project: 'alpha' });
    await chat(expiring.key, 'fast');
    await admin()
      .patch(`/api/v1/keys/${expiring.id}`)
      .set(asMaster)
      .send({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .expect(200);
    expect(await refusal(chat(expiring.key, 'fast'))).toBeInstanceOf(AuthenticationError);

    const deleted = await createKey({ project: 'alpha' });
    await chat(deleted.key, 'fast');
    await admin().delete(`/api/v1/keys/${deleted.id}`).set(asMaster).expect(204);
    expect(await refusal(chat(deleted.key, 'fast'))).toBeInstanceOf(AuthenticationError);
    await admin().get(`/api/v1/keys/${deleted.id}`).set(asMaster).expect(404);
  });

  it('applies a PATCH of the aliases at once', async () => {
    const created = await createKey({ project: 'alpha', aliases: ['fast'] });
    await chat(created.key, 'fast');
    const patched = await admin()
      .patch(`/api/v1/keys/${created.id}`)
      .set(asMaster)
      .send({ aliases: ['smart'] })
      .expect(200);
    expect(patched.body).toMatchObject({ aliases: ['smart'] });
    expect(await refusal(chat(created.key, 'fast'))).toBeInstanceOf(PermissionDeniedError);
    await chat(created.key, 'smart');
  });

  it('reads key_alias null as no name, as LiteLLM does, however many keys have none', async () => {
    for (const project of ['alpha', 'beta']) {
      const created = await admin().post('/api/v1/keys').set(asMaster).send({ project, key_alias: null }).expect(201);
      expect(created.body).toMatchObject({ project, key_alias: null });
    }
    const named = await createKey({ project: 'alpha', key_alias: 'null-alias-named' });
    const cleared = await admin().patch(`/api/v1/keys/${named.id}`).set(asMaster).send({ key_alias: null }).expect(200);
    expect(cleared.body).toMatchObject({ key_alias: null });
  });

  it('rotates: the old key stops working, the new one (shown once) works', async () => {
    const created = await createKey({ project: 'alpha', aliases: ['fast'] });
    await chat(created.key, 'fast');
    const rotated = await admin().post(`/api/v1/keys/${created.id}/rotate`).set(asMaster).expect(200);
    const body = rotated.body as KeyBody & { key: string };
    expect(body.id).toBe(created.id);
    expect(body.key).toMatch(/^sk-arbor-/);
    expect(body.key).not.toBe(created.key);
    expect(await refusal(chat(created.key, 'fast'))).toBeInstanceOf(AuthenticationError);
    expect((await chat(body.key, 'fast')).choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
  });

  it('stores only the SHA-256 of each key, never the key', async () => {
    const created = await createKey({ project: 'beta', aliases: ['fast'] });
    const pg = new Client({ connectionString: database.url });
    await pg.connect();
    try {
      const rows = (await pg.query('select * from virtual_keys')).rows as Record<string, unknown>[];
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(created.key.slice('sk-arbor-'.length));
      const row = rows.find((candidate) => candidate['id'] === created.id);
      expect(row?.['key_hash']).toBe(createHash('sha256').update(created.key).digest('hex'));
      expect(row?.['key_hint']).toBe(created.key_hint);
    } finally {
      await pg.end();
    }
  });

  it('refuses virtual keys and missing credentials on the admin API, answering in the platform envelope', async () => {
    const { key } = await createKey({ project: 'alpha' });
    const none = await admin().get('/api/v1/keys').expect(401);
    expect(none.body).toEqual({ error: { code: 'missing_credentials', message: expect.any(String) } });
    const virtual = await admin().get('/api/v1/keys').set('authorization', `Bearer ${key}`).expect(401);
    expect(virtual.body).toEqual({ error: { code: 'invalid_api_key', message: expect.any(String) } });
    await admin().post('/api/v1/keys').set('x-api-key', key).send({ project: 'alpha' }).expect(401);
  });

  it('validates bodies and ids in the platform envelope', async () => {
    const bad = await admin().post('/api/v1/keys').set(asMaster).send({ project: 'Not A Slug', aliases: 'fast', rpm_limit: 0, extra: 1 }).expect(400);
    expect((bad.body as { error: { code: string; details: { fields: Record<string, unknown> } } }).error).toMatchObject({ code: 'invalid_request' });
    expect(Object.keys((bad.body as { error: { details: { fields: Record<string, unknown> } } }).error.details.fields).sort()).toEqual([
      'aliases',
      'extra',
      'project',
      'rpm_limit',
    ]);
    await admin().get('/api/v1/keys/not-a-uuid').set(asMaster).expect(400);
    const missing = await admin().post('/api/v1/keys/00000000-0000-4000-8000-000000000000/block').set(asMaster).expect(404);
    expect(missing.body).toMatchObject({ error: { code: 'key_not_found' } });
  });
});
