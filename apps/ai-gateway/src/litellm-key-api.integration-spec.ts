// LiteLLM's key API as a LiteLLM user's scripts call it: plain HTTP (fetch) with LiteLLM's field
// names and the master key, against the gateway, whose keys then call models through the official
// OpenAI SDK (the upstream from tools/fake-providers).
import { createHash } from 'node:crypto';
import OpenAI, { AuthenticationError, BadRequestError, PermissionDeniedError, RateLimitError } from 'openai';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, startTestControlPlane, TestControlPlane, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { managedBy, MASTER_KEY, rejectionOf, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("LiteLLM's key API", () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, token = MASTER_KEY): Promise<{ status: number; json: Json }> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
  const generate = async (body: Json): Promise<Json> => {
    const { status, json } = await call('POST', '/key/generate', body);
    expect({ status, json }).toMatchObject({ status: 200 });
    return json;
  };
  const chat = (key: string, model = 'fast') =>
    new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    const config = writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
  - model_name: other
    litellm_params: { model: openai/gpt-4o, api_base: ${fake.url}/v1, api_key: sk-upstream }
  - model_name: cheap
    litellm_params: { model: openai/tokens-1-0, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.00003, output_cost_per_token: 0 }
  - model_name: dearer
    litellm_params: { model: openai/tokens-1-0, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.00012, output_cost_per_token: 0 }
`);
    gateway = await startTestGateway(database, config);
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('generates a key from LiteLLM fields, which then calls the models it names', async () => {
    const before = Date.now();
    const created = await generate({
      team_id: 'alpha',
      key_alias: 'search-backend',
      models: ['fast'],
      duration: '30d',
      max_budget: 25,
      budget_duration: '30d',
      rpm_limit: 100,
      tpm_limit: 100000,
      max_parallel_requests: 4,
      metadata: { app: 'search' },
      // LiteLLM's defaults for what is not served here are accepted.
      spend: 0,
      aliases: {},
      config: {},
      permissions: {},
      allowed_cache_controls: [],
      user_id: null,
    });
    expect(created).toMatchObject({
      key_alias: 'search-backend',
      team_id: 'alpha',
      models: ['fast'],
      max_budget: 25,
      budget_duration: '30d',
      rpm_limit: 100,
      tpm_limit: 100000,
      max_parallel_requests: 4,
      metadata: { app: 'search' },
      spend: 0,
      blocked: false,
    });
    expect(created['key']).toMatch(/^sk-arbor-/);
    expect(created['token']).toBe(createHash('sha256').update(created['key']).digest('hex'));
    const expires = Date.parse(created['expires']);
    expect(expires).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
    expect(expires).toBeLessThan(Date.now() + 30 * 86_400_000 + 60_000);

    expect((await chat(created['key'])).choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
    expect(await rejectionOf(chat(created['key'], 'other'))).toBeInstanceOf(PermissionDeniedError);
    // The same key on the admin API.
    const listed = (await call('GET', '/api/v1/keys?project=alpha')).json['keys'] as Json[];
    expect(listed.find((key) => key['key_alias'] === 'search-backend')).toMatchObject({ project: 'alpha', aliases: ['fast'], max_budget: 25 });
  });

  it('limits a key per model (model_rpm_limit, model_tpm_limit): the model over its limit gets a 429, the others answer', async () => {
    const created = await generate({ team_id: 'alpha', model_rpm_limit: { fast: 1 }, model_tpm_limit: { other: 1_000 } });
    expect(created).toMatchObject({ model_rpm_limit: { fast: 1 }, model_tpm_limit: { other: 1_000 } });
    await chat(created['key']);
    const refused = await rejectionOf(chat(created['key']));
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).message).toContain('on "fast": 1 requests per minute (model_rpm_limit)');
    expect((refused as RateLimitError).headers?.get('retry-after')).toMatch(/^\d+$/);
    expect(await call('POST', '/key/update', { key: created['key'], model_rpm_limit: { fast: 0 } })).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request', details: { fields: { model_rpm_limit: [expect.stringContaining('whole number of at least 1')] } } } },
    });
    // Lifted: the key calls the model again at once.
    expect(await call('POST', '/key/update', { key: created['key'], model_rpm_limit: {} })).toMatchObject({ status: 200, json: { model_rpm_limit: {} } });
    await expect(chat(created['key'])).resolves.toBeDefined();
  });

  it("tells a key by the key, its token or metadata.project, and answers /key/info in LiteLLM's shape", async () => {
    const created = await generate({ metadata: { project: 'beta' } });
    await chat(created['key']);
    for (const reference of [created['key'], created['token']]) {
      const { status, json } = await call('GET', `/key/info?key=${encodeURIComponent(reference)}`);
      expect(status).toBe(200);
      expect(json).toMatchObject({ key: reference, info: { token: created['token'], team_id: 'beta', models: [], blocked: false, expires: null } });
      expect(json['info']['spend']).toBeGreaterThan(0);
      expect(json['info']).not.toHaveProperty('key');
    }
    expect(await call('GET', '/key/info?key=sk-arbor-unknown')).toMatchObject({ status: 404, json: { error: { code: 'key_not_found' } } });
  });

  it('blocks a key (its calls get 401) and unblocks it', async () => {
    const { key } = await generate({ team_id: 'alpha' });
    expect(await call('POST', '/key/block', { key })).toMatchObject({ status: 200, json: { blocked: true } });
    const refused = await rejectionOf(chat(key));
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 401 });
    expect(await call('POST', '/key/unblock', { key })).toMatchObject({ status: 200, json: { blocked: false } });
    expect((await chat(key)).choices).toHaveLength(1);
  });

  it('updates a key with LiteLLM fields', async () => {
    const { key } = await generate({ team_id: 'alpha', models: ['fast'] });
    const { status, json } = await call('POST', '/key/update', {
      key,
      models: ['fast', 'other'],
      rpm_limit: 10,
      metadata: { owner: 'search' },
      key_alias: 'updated-alias',
      blocked: true,
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({ key, models: ['fast', 'other'], rpm_limit: 10, metadata: { owner: 'search' }, key_alias: 'updated-alias', blocked: true });
    expect((await call('GET', `/key/info?key=${key}`)).json['info']).toMatchObject({ models: ['fast', 'other'], rpm_limit: 10, key_alias: 'updated-alias' });
    expect(await rejectionOf(chat(key, 'other'))).toBeInstanceOf(AuthenticationError);
  });

  it("regenerates a key: the new one works, the old one stops, in both of LiteLLM's forms", async () => {
    const { key } = await generate({ team_id: 'alpha', key_alias: 'to-rotate' });
    const rotated = await call('POST', '/key/regenerate', { key, max_budget: 5 });
    expect(rotated).toMatchObject({ status: 200, json: { key_alias: 'to-rotate', max_budget: 5 } });
    const fresh = rotated.json['key'] as string;
    expect(fresh).not.toBe(key);
    expect(rotated.json['token']).toBe(createHash('sha256').update(fresh).digest('hex'));
    expect(await rejectionOf(chat(key))).toBeInstanceOf(AuthenticationError);
    expect((await chat(fresh)).choices).toHaveLength(1);

    const again = await call('POST', `/key/${encodeURIComponent(fresh)}/regenerate`, {});
    expect(again.status).toBe(200);
    expect(await rejectionOf(chat(fresh))).toBeInstanceOf(AuthenticationError);
    expect((await chat(again.json['key'] as string)).choices).toHaveLength(1);
    expect(await call('POST', '/key/regenerate', { key: again.json['key'], new_master_key: 'sk-new-master' })).toMatchObject({
      status: 400,
      json: { error: { code: 'not_served' } },
    });
  });

  it('refuses a regeneration naming no key (key null, or left out) with 400', async () => {
    const refused = await call('POST', '/key/regenerate', { key: null });
    expect(refused).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
    expect(JSON.stringify(refused.json)).toMatch(/key must be a string/);
    expect(await call('POST', '/key/regenerate', {})).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
  });

  it('lists keys as LiteLLM does: tokens by default, objects on request, paged, by team', async () => {
    const first = await generate({ team_id: 'listing' });
    const second = await generate({ team_id: 'listing', key_alias: 'listed-second' });
    const tokens = await call('GET', '/key/list?team_id=listing');
    expect(tokens).toMatchObject({ status: 200, json: { total_count: 2, current_page: 1, total_pages: 1 } });
    expect(new Set(tokens.json['keys'])).toEqual(new Set([first['token'], second['token']]));
    const paged = await call('GET', '/key/list?team_id=listing&size=1&page=2&sort_by=created_at&sort_order=asc&return_full_object=true');
    expect(paged.json).toMatchObject({ total_count: 2, current_page: 2, total_pages: 2, keys: [{ token: second['token'], key_alias: 'listed-second', team_id: 'listing' }] });
    expect((await call('GET', '/key/list?key_alias=listed-second')).json['keys']).toEqual([second['token']]);
  });

  it('deletes keys by key and by key_alias', async () => {
    const one = await generate({ team_id: 'alpha' });
    const two = await generate({ team_id: 'alpha', key_alias: 'to-delete' });
    expect(await call('POST', '/key/delete', { keys: [one['key']], key_aliases: ['to-delete'] })).toMatchObject({ status: 200, json: { deleted_keys: [one['key'], 'to-delete'] } });
    expect(await rejectionOf(chat(one['key']))).toBeInstanceOf(AuthenticationError);
    expect(await rejectionOf(chat(two['key']))).toBeInstanceOf(AuthenticationError);
    expect((await call('GET', `/key/info?key=${two['token']}`)).status).toBe(404);
  });

  it('honours max_budget: once spent, the key is refused with budget_exceeded', async () => {
    // One call costs 7 × 0.001 + 5 × 0.002 = 0.017.
    const { key } = await generate({ team_id: 'alpha', max_budget: 0.01, budget_duration: '30d' });
    await chat(key);
    const refused = await rejectionOf(chat(key));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused).toMatchObject({ status: 400, code: 'budget_exceeded' });
  });

  it("honours model_max_budget as LiteLLM's docs write it: the key is refused on that alias only, naming it", async () => {
    // One call of "fast" costs 0.017: over the alias's budget of 0.01 after the first.
    const created = await generate({ team_id: 'alpha', model_max_budget: { fast: { budget_limit: '0.01', time_period: '1d' } } });
    expect(created['model_max_budget']).toEqual({ fast: { budget_limit: 0.01, time_period: '1d' } });
    await chat(created['key']);
    const refused = await rejectionOf(chat(created['key']));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused).toMatchObject({ status: 400, code: 'budget_exceeded' });
    expect((refused as BadRequestError).message).toBe('400 Budget has been exceeded! Current cost: 0.017, Max budget: 0.01 (the key\'s model_max_budget for "fast")');
    await expect(chat(created['key'], 'cheap')).resolves.toBeDefined();
    // Raised with /key/update, the alias is open again.
    const updated = await call('POST', '/key/update', { key: created['key'], model_max_budget: { fast: { budget_limit: 1, time_period: '1d' } } });
    expect(updated).toMatchObject({ status: 200, json: { model_max_budget: { fast: { budget_limit: 1, time_period: '1d' } } } });
    await expect(chat(created['key'])).resolves.toBeDefined();
  });

  it('raises one alert when a key reaches its soft_budget in the period, and refuses nothing for it', async () => {
    const alerts = async () =>
      Number(/^arbor_aigw_budget_alerts_total\{[^}]*threshold="soft_budget"[^}]*\} (\d+)$/m.exec(await (await fetch(`${gateway.url}/metrics`)).text())?.[1] ?? 0);
    const before = await alerts();
    // Calls of 0.017 each: the second takes the period's spend past 0.02.
    const created = await generate({ team_id: 'alpha', max_budget: 1, budget_duration: '30d', soft_budget: 0.02 });
    expect(created['soft_budget']).toBe(0.02);
    await chat(created['key']);
    expect(await alerts()).toBe(before);
    await chat(created['key']);
    expect(await alerts()).toBe(before + 1);
    await chat(created['key']);
    expect(await alerts()).toBe(before + 1);
  });

  it('refuses what it cannot honour with 400 naming the field, and changes nothing', async () => {
    expect(await call('POST', '/key/generate', { models: ['fast'] })).toMatchObject({ status: 400, json: { error: { code: 'project_required' } } });
    expect(await call('POST', '/key/generate', { team_id: 'Not A Slug' })).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request', details: { fields: { team_id: expect.any(Array) } } } },
    });
    for (const field of [{ permissions: { allow_pii_controls: true } }, { tags: ['prod'] }, { allowed_cache_controls: ['no-cache'] }, { key: 'sk-my-own-key' }, { spend: 3 }]) {
      const name = Object.keys(field)[0] as string;
      const refused = await call('POST', '/key/generate', { team_id: 'refusals', ...field });
      expect({ name, refused }).toMatchObject({
        name,
        refused: { status: 400, json: { error: { code: 'unsupported_field', details: { fields: { [name]: expect.any(Array) } } } } },
      });
    }
    expect(await call('POST', '/key/generate', { team_id: 'refusals', not_a_litellm_field: 1 })).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
    expect(await call('POST', '/key/generate', { team_id: 'refusals', model_max_budget: { fast: 1 } })).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request', details: { fields: { model_max_budget: [expect.stringContaining('"fast" must be {budget_limit, time_period}')] } } } },
    });
    expect((await call('GET', '/key/list?team_id=refusals')).json['total_count']).toBe(0);
  });

  it('takes the master key, refuses no credentials and virtual keys', async () => {
    const { key } = await generate({ team_id: 'alpha' });
    expect((await fetch(`${gateway.url}/key/list`)).status).toBe(401);
    expect((await call('GET', '/key/list', undefined, key)).status).toBe(401);
    expect((await call('POST', '/key/generate', { team_id: 'alpha' }, key)).status).toBe(401);
  });

  it("reports daily spend as LiteLLM's summarised /spend/logs", async () => {
    const created = await generate({ team_id: 'spend-logs' });
    await chat(created['key']);
    const today = new Date().toISOString().slice(0, 10);
    const { status, json } = await call('GET', `/spend/logs?start_date=${today}&end_date=${today}&api_key=${created['key']}`);
    expect(status).toBe(200);
    expect(json).toEqual([
      { startTime: today, spend: expect.closeTo(0.017, 10), models: { fast: expect.closeTo(0.017, 10) }, users: {}, [created['token']]: expect.closeTo(0.017, 10) },
    ]);
    // Daily totals are not kept per person (single calls are: summarize=false).
    expect(await call('GET', `/spend/logs?start_date=${today}&end_date=${today}&user_id=alice`)).toMatchObject({ status: 400, json: { error: { code: 'unsupported_field' } } });
  });

  it('answers spend as the exact decimal where adding floats would show noise (0.00003 + 0.00012)', async () => {
    expect(String(0.00003 + 0.00012)).toBe('0.00015000000000000001');
    const created = await generate({ team_id: 'exact-spend' });
    const costs = [(await chat(created['key'], 'cheap')).usage, (await chat(created['key'], 'dearer')).usage].map((usage) => (usage as unknown as Json)['cost']);
    expect(costs).toEqual([0.00003, 0.00012]);
    const today = new Date().toISOString().slice(0, 10);
    const logs = await fetch(`${gateway.url}/spend/logs?start_date=${today}&end_date=${today}&api_key=${created['key']}`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
    // As the client reads it: the JSON text itself carries the decimal.
    expect(await logs.text()).toContain('"spend":0.00015,');
    const info = await fetch(`${gateway.url}/key/info?key=${created['key']}`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
    expect(await info.text()).toContain('"spend":0.00015,');
  });
});

describe("LiteLLM's key API for persons, with the admin API's permissions", () => {
  let controlPlane: TestControlPlane;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  const tokens = { admin: '', alice: '', bob: '', carol: '' };

  const call = async (method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<{ status: number; json: Json }> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };

  beforeAll(async () => {
    controlPlane = await startTestControlPlane();
    Object.assign(tokens, controlPlane.tokens);
    await controlPlane.grant('alice', { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
    await controlPlane.grant('bob', { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.viewer'] } });
    database = await createTestDatabase();
    gateway = await startTestGateway(database, undefined, managedBy(controlPlane));
  });

  afterAll(async () => {
    await gateway?.close();
    await controlPlane?.stop();
    await database?.drop();
  });

  it("lets an operator manage the keys of their project, and nobody another project's", async () => {
    const own = await call('POST', '/key/generate', tokens.alice, { team_id: 'alpha', key_alias: 'alice-key' });
    expect(own.status).toBe(200);
    expect((await call('POST', '/key/generate', tokens.alice, { team_id: 'beta' })).status).toBe(403);
    const foreign = await call('POST', '/key/generate', MASTER_KEY, { team_id: 'beta' });
    expect(foreign.status).toBe(200);

    expect((await call('POST', '/key/update', tokens.alice, { key: own.json['token'], rpm_limit: 5 })).json).toMatchObject({ rpm_limit: 5 });
    expect((await call('POST', '/key/update', tokens.alice, { key: own.json['token'], team_id: 'beta' })).status).toBe(403);
    expect((await call('POST', '/key/block', tokens.alice, { key: foreign.json['token'] })).status).toBe(403);
    expect((await call('GET', `/key/info?key=${foreign.json['token']}`, tokens.alice)).status).toBe(403);
    // A refusal of one named key deletes none of them.
    expect((await call('POST', '/key/delete', tokens.alice, { keys: [own.json['token'], foreign.json['token']] })).status).toBe(403);
    expect((await call('GET', `/key/info?key=${own.json['token']}`, tokens.alice)).status).toBe(200);

    const listed = await call('GET', '/key/list', tokens.alice);
    expect(listed.json['keys']).toEqual([own.json['token']]);
    expect((await call('GET', '/key/list?team_id=beta', tokens.alice)).status).toBe(403);
  });

  it('lets a viewer read keys and spend of their project, and change nothing', async () => {
    const made = await call('POST', '/key/generate', MASTER_KEY, { team_id: 'alpha' });
    expect((await call('GET', `/key/info?key=${made.json['token']}`, tokens.bob)).json).toMatchObject({ info: { team_id: 'alpha' } });
    const today = new Date().toISOString().slice(0, 10);
    expect((await call('GET', `/spend/logs?start_date=${today}&end_date=${today}`, tokens.bob)).status).toBe(200);
    expect((await call('POST', '/key/generate', tokens.bob, { team_id: 'alpha' })).status).toBe(403);
    expect((await call('POST', '/key/block', tokens.bob, { key: made.json['token'] })).status).toBe(403);
    expect((await call('POST', '/key/regenerate', tokens.bob, { key: made.json['token'] })).status).toBe(403);
  });
});
