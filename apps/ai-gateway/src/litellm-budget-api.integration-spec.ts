// A LiteLLM user's budget scripts, unchanged: plain HTTP with LiteLLM's field names and the master
// key against the gateway (/customer/*), whose keys then call models through the official OpenAI
// SDK, naming their end users as LiteLLM's docs do (`user`), against tools/fake-providers.
import OpenAI, { BadRequestError, PermissionDeniedError, RateLimitError } from 'openai';
import { AiGatewayConfig } from '@arbor/config';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { MASTER_KEY, rejectionOf, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("LiteLLM's budget API: customers (end users)", () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;
  let key: string;

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${MASTER_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
  // One call of "hello" costs 7 × 0.001 + 5 × 0.002 = 0.017 USD.
  const chat = (user?: string, headers: Record<string, string> = {}) =>
    new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: headers }).chat.completions.create({
      model: 'fast',
      messages: [{ role: 'user', content: 'hello' }],
      ...(user !== undefined ? { user } : {}),
    });

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    gateway = await startTestGateway(
      database,
      writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
`),
    );
    const generated = await call('POST', '/key/generate', { team_id: 'alpha' });
    expect(generated.status).toBe(200);
    key = generated.json['key'] as string;
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it("creates a customer with a budget (/customer/new, max_budget as LiteLLM's docs write it), refuses its calls once spent, and shows its spend", async () => {
    expect(await call('POST', '/customer/new', { user_id: 'acme', max_budget: '0.01', budget_duration: '30d' })).toEqual({
      status: 200,
      json: expect.objectContaining({ user_id: 'acme', blocked: false, spend: 0, litellm_budget_table: { max_budget: 0.01, budget_duration: '30d' } }),
    });
    await chat('acme');
    const refused = await rejectionOf(chat('acme'));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toBe('400 Budget has been exceeded! Current cost: 0.017, Max budget: 0.01 (the budget of end user "acme")');
    // Named by the header instead of the body, the same customer.
    expect(await rejectionOf(chat(undefined, { 'x-arbor-end-user': 'acme' }))).toMatchObject({ status: 400, code: 'budget_exceeded' });
    // Another end user, and none, are not held back.
    await expect(chat('someone-else')).resolves.toBeDefined();
    await expect(chat()).resolves.toBeDefined();
    expect((await call('GET', '/customer/info?end_user_id=acme')).json).toMatchObject({ user_id: 'acme', spend: 0.017 });

    expect(await call('POST', '/customer/update', { user_id: 'acme', max_budget: 1 })).toMatchObject({ status: 200, json: { litellm_budget_table: { max_budget: 1 } } });
    await expect(chat('acme')).resolves.toBeDefined();
  });

  it('blocks and unblocks end users (/customer/block, /customer/unblock), and deletes customers', async () => {
    expect(await call('POST', '/customer/block', { user_ids: ['mallory'] })).toMatchObject({ status: 200, json: { blocked_users: [{ user_id: 'mallory', blocked: true }] } });
    const blocked = await rejectionOf(chat('mallory'));
    expect(blocked).toBeInstanceOf(PermissionDeniedError);
    expect(blocked).toMatchObject({ status: 403, code: 'end_user_blocked' });
    expect((await call('POST', '/customer/unblock', { user_ids: ['mallory'] })).status).toBe(200);
    await expect(chat('mallory')).resolves.toBeDefined();

    expect(await call('POST', '/customer/delete', { user_ids: ['mallory'] })).toEqual({ status: 200, json: { deleted_customers: ['mallory'] } });
    expect(await call('GET', '/customer/info?end_user_id=mallory')).toMatchObject({ status: 404, json: { error: { code: 'customer_not_found' } } });
    expect((await call('GET', '/customer/list')).json.map((customer: Json) => customer['user_id'])).toEqual(['acme']);
  });

  it('refuses what it cannot honour, naming the field, and a customer that exists', async () => {
    expect(await call('POST', '/customer/new', { user_id: 'regional', allowed_model_region: 'eu' })).toMatchObject({
      status: 400,
      json: { error: { code: 'unsupported_field', details: { fields: { allowed_model_region: expect.any(Array) } } } },
    });
    expect(await call('POST', '/customer/new', { user_id: 'acme' })).toMatchObject({ status: 400, json: { error: { code: 'customer_exists' } } });
    expect(await call('POST', '/customer/new', { user_id: 'negative', max_budget: -1 })).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
    expect((await call('GET', '/customer/info?end_user_id=regional')).status).toBe(404);
  });
});

describe("LiteLLM's budget API: teams (projects)", () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${MASTER_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
  const keyOf = async (team: string): Promise<string> => (await call('POST', '/key/generate', { team_id: team })).json['key'] as string;
  // 0.017 USD a call.
  const chat = (key: string) =>
    new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }] });

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    gateway = await startTestGateway(
      database,
      writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
`),
    );
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it("sets a project's budget with /team/update: every key of the project counts, and each is refused once it is spent, naming the project", async () => {
    const first = await keyOf('gamma');
    const second = await keyOf('gamma');
    const elsewhere = await keyOf('delta');
    const updated = await call('POST', '/team/update', { team_id: 'gamma', max_budget: 0.03, budget_duration: '30d' });
    expect(updated).toMatchObject({ status: 200, json: { team_id: 'gamma', data: { team_id: 'gamma', max_budget: 0.03, budget_duration: '30d', spend: 0 } } });

    await chat(first);
    await chat(second);
    const refused = await rejectionOf(chat(first));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toBe('400 Budget has been exceeded! Current cost: 0.034, Max budget: 0.03 (the budget of project "gamma", LiteLLM\'s team)');
    await expect(chat(elsewhere)).resolves.toBeDefined();

    const info = await call('GET', '/team/info?team_id=gamma');
    expect(info).toMatchObject({ status: 200, json: { team_id: 'gamma', team_info: { max_budget: 0.03, spend: 0.034, budget_reset_at: expect.any(String) } } });
    expect(info.json['keys']).toHaveLength(2);
    expect((await call('GET', '/team/list')).json).toEqual([
      expect.objectContaining({ team_id: 'delta', max_budget: null }),
      expect.objectContaining({ team_id: 'gamma', max_budget: 0.03, spend: 0.034 }),
    ]);

    // Raised, the project's keys call again.
    await call('POST', '/team/update', { team_id: 'gamma', max_budget: 10 });
    await expect(chat(first)).resolves.toBeDefined();
  });

  it('gives a person a budget in a project (/team/member_add, /team/member_update): the keys made for them (user_id) are refused once it is spent, naming them; others are not', async () => {
    const generated = await call('POST', '/key/generate', { team_id: 'omega', user_id: 'ada' });
    expect(generated).toMatchObject({ status: 200, json: { user_id: 'ada', team_id: 'omega' } });
    const ada = generated.json['key'] as string;
    const adaSecond = (await call('POST', '/key/generate', { team_id: 'omega', user_id: 'ada' })).json['key'] as string;
    const grace = (await call('POST', '/key/generate', { team_id: 'omega', user_id: 'grace' })).json['key'] as string;
    // LiteLLM's scripts add the member with a budget, then change it.
    expect(await call('POST', '/team/member_add', { team_id: 'omega', member: { role: 'user', user_id: 'ada' }, max_budget_in_team: 0.5 })).toMatchObject({
      status: 200,
      json: { team_id: 'omega', updated_team_memberships: [{ user_id: 'ada', max_budget_in_team: 0.5, spend: 0 }] },
    });
    expect(await call('POST', '/team/member_update', { team_id: 'omega', user_id: 'ada', max_budget_in_team: 0.03, budget_duration: '30d' })).toMatchObject({
      status: 200,
      json: { team_id: 'omega', user_id: 'ada', max_budget_in_team: 0.03, budget_duration: '30d', budget_reset_at: expect.any(String) },
    });

    // Both of ada's keys count against her budget in the project.
    await chat(ada);
    await chat(adaSecond);
    const refused = await rejectionOf(chat(ada));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toBe(
      '400 Budget has been exceeded! Current cost: 0.034, Max budget: 0.03 (the budget of user "ada" in project "omega", LiteLLM\'s team member budget)',
    );
    expect(await rejectionOf(chat(adaSecond))).toMatchObject({ status: 400, code: 'budget_exceeded' });
    // Another person of the project is not held back.
    await expect(chat(grace)).resolves.toBeDefined();

    const info = await call('GET', '/team/info?team_id=omega');
    expect(info.json['team_memberships']).toEqual([expect.objectContaining({ user_id: 'ada', max_budget_in_team: 0.03, spend: 0.034 })]);
    const user = await call('GET', '/user/info?user_id=ada');
    expect(user).toMatchObject({ status: 200, json: { user_id: 'ada', user_info: { teams: ['omega'] }, teams: [{ team_id: 'omega', spend: 0.034 }] } });
    expect(user.json['keys']).toHaveLength(2);
    expect((await call('GET', '/key/list?user_id=grace&return_full_object=true')).json['keys']).toEqual([expect.objectContaining({ user_id: 'grace' })]);

    // Without a budget of her own (member_delete), the project's budget alone applies again.
    expect(await call('POST', '/team/member_delete', { team_id: 'omega', user_id: 'ada' })).toMatchObject({ status: 200 });
    await expect(chat(ada)).resolves.toBeDefined();
    expect((await call('GET', '/team/info?team_id=omega')).json['team_memberships']).toEqual([]);
    // The single calls of her keys, as LiteLLM lists a user's, newest first: each naming her, the two
    // her budget refused among them.
    const logs = (await call('GET', '/spend/logs?user_id=ada')).json as unknown as Json[];
    expect(logs.map((log) => [log['user'], log['team_id'], log['status'], log['metadata']['error_code']])).toEqual([
      ['ada', 'omega', 'success', null],
      ['ada', 'omega', 'failure', 'budget_exceeded'],
      ['ada', 'omega', 'failure', 'budget_exceeded'],
      ['ada', 'omega', 'success', null],
      ['ada', 'omega', 'success', null],
    ]);
    // The project's spend report, by person.
    const report = await call('GET', '/api/v1/spend?project=omega');
    expect(report.json['by_person']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: 'ada', requests: 3, cost_usd: 0.051 }),
        expect.objectContaining({ user_id: 'grace', requests: 1, cost_usd: 0.017 }),
      ]),
    );
  });

  it("refuses what a person's membership cannot honour here: roles and e-mails are the control plane's", async () => {
    expect(await call('POST', '/team/member_add', { team_id: 'omega', member: { role: 'admin', user_id: 'ada' } })).toMatchObject({
      status: 400,
      json: { error: { code: 'unsupported_field', details: { fields: { role: expect.any(Array) } } } },
    });
    expect(await call('POST', '/team/member_update', { team_id: 'omega', user_email: 'ada@example.com', max_budget_in_team: 1 })).toMatchObject({ status: 400 });
    expect(await call('POST', '/team/member_update', { team_id: 'omega', user_id: 'ada', tpm_limit: 5 })).toMatchObject({
      status: 400,
      json: { error: { code: 'unsupported_field' } },
    });
    expect((await call('GET', '/user/info?user_id=nobody')).status).toBe(404);
  });

  it("limits a project's keys together (LiteLLM's team rpm_limit, tpm_limit) and to the team's models", async () => {
    const [first, second] = [await keyOf('rho'), await keyOf('rho')];
    const elsewhere = await keyOf('sigma');
    expect(await call('POST', '/team/update', { team_id: 'rho', rpm_limit: 3, models: ['fast'] })).toMatchObject({
      status: 200,
      json: { data: { rpm_limit: 3, tpm_limit: null, models: ['fast'] } },
    });
    // Three calls a minute over both keys of the project; the fourth is refused, on either key.
    await chat(first);
    await chat(second);
    await chat(first);
    const refused = await rejectionOf(chat(second));
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).message).toContain('Rate limit reached for project "rho" (LiteLLM\'s team): 3 requests per minute (rpm_limit)');
    expect((refused as RateLimitError).headers?.get('retry-after')).toMatch(/^\d+$/);
    await expect(chat(elsewhere)).resolves.toBeDefined();
    // The team's models: an alias outside them is refused for its keys, whatever the key allows.
    await call('POST', '/team/update', { team_id: 'rho', rpm_limit: null, models: ['other'] });
    expect(await rejectionOf(chat(first))).toMatchObject({ status: 403, code: 'team_model_access_denied' });
    await call('POST', '/team/update', { team_id: 'rho', models: [], tpm_limit: 10 });
    // tpm: the first call's 12 tokens use the minute's 10, the next is refused.
    await chat(first);
    expect(await rejectionOf(chat(second))).toMatchObject({ status: 429, message: expect.stringContaining('10 tokens per minute (tpm_limit)') });
  });

  it('says that projects are made in the control plane, and refuses team fields it cannot honour', async () => {
    expect(await call('POST', '/team/new', { team_alias: 'search' })).toMatchObject({
      status: 400,
      json: { error: { code: 'not_served', message: expect.stringContaining('control plane') } },
    });
    expect(await call('POST', '/team/update', { team_id: 'gamma', members_with_roles: [{ role: 'admin', user_id: 'x' }] })).toMatchObject({
      status: 400,
      json: { error: { code: 'unsupported_field', details: { fields: { members_with_roles: expect.any(Array) } } } },
    });
    expect(await call('POST', '/team/update', { team_id: 'Not A Slug', max_budget: 1 })).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
    expect((await call('GET', '/team/info?team_id=nobody')).status).toBe(404);
  });
});

describe("LiteLLM's budget API: tags", () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;
  let key: string;

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${MASTER_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
  // 0.017 USD a call; tags as LiteLLM's docs send them (metadata.tags), or in the header.
  const chat = (tags: string[] | undefined, headers: Record<string, string> = {}) =>
    new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: headers }).chat.completions.create({
      model: 'fast',
      messages: [{ role: 'user', content: 'hello' }],
      ...(tags ? { metadata: { tags } as unknown as Record<string, string> } : {}),
    });

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    gateway = await startTestGateway(
      database,
      writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
`),
    );
    key = (await call('POST', '/key/generate', { team_id: 'alpha' })).json['key'] as string;
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('sets a budget on a tag (/tag/new), refuses its calls once spent naming the tag, and reports spend by tag (/spend/tags)', async () => {
    expect(await call('POST', '/tag/new', { name: 'engineering', description: 'Engineering cost center', max_budget: 0.02, budget_duration: '30d' })).toMatchObject({
      status: 200,
      json: { name: 'engineering', description: 'Engineering cost center', max_budget: 0.02, budget_duration: '30d', spend: 0 },
    });
    await chat(['engineering', 'chat-bot']);
    await chat(['engineering', 'chat-bot']);
    const refused = await rejectionOf(chat(['engineering']));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toBe('400 Budget has been exceeded! Current cost: 0.034, Max budget: 0.02 (the budget of tag "engineering")');
    await chat(undefined, { 'x-arbor-tags': 'chat-bot, nightly' });
    await chat(undefined);

    const today = new Date().toISOString().slice(0, 10);
    expect(await call('GET', `/spend/tags?start_date=${today}&end_date=${today}`)).toEqual({
      status: 200,
      json: [
        { individual_request_tag: 'chat-bot', log_count: 3, total_spend: 0.051 },
        { individual_request_tag: 'engineering', log_count: 2, total_spend: 0.034 },
        { individual_request_tag: 'nightly', log_count: 1, total_spend: 0.017 },
      ],
    });
    expect((await call('POST', '/tag/info', { names: ['engineering'] })).json).toMatchObject({ engineering: { spend: 0.034, max_budget: 0.02 } });

    expect(await call('POST', '/tag/update', { name: 'engineering', max_budget: 1 })).toMatchObject({ status: 200, json: { max_budget: 1 } });
    await expect(chat(['engineering'])).resolves.toBeDefined();
    expect((await call('GET', '/tag/list')).json.map((tag: Json) => tag['name'])).toEqual(['engineering']);
    expect(await call('POST', '/tag/delete', { name: 'engineering' })).toEqual({ status: 200, json: { deleted: 'engineering' } });
    expect((await call('POST', '/tag/info', { names: ['engineering'] })).status).toBe(404);
    expect(await call('POST', '/tag/new', { name: 'routed', models: ['fast'] })).toMatchObject({ status: 400, json: { error: { code: 'unsupported_field' } } });
  });

  it("lists single calls as LiteLLM's /spend/logs does: newest first, paged, filtered, metadata only", async () => {
    const logger = await call('POST', '/key/generate', { team_id: 'logs', key_alias: 'logger' });
    const client = new OpenAI({ apiKey: logger.json['key'] as string, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    for (const [user, tags] of [
      ['u1', ['nightly']],
      ['u2', ['nightly', 'batch']],
      ['u1', []],
    ] as const) {
      const { response } = await client.chat.completions
        .create({ model: 'fast', user, messages: [{ role: 'user', content: 'secret-prompt-marker' }], metadata: { tags: [...tags] } as unknown as Record<string, string> })
        .withResponse();
      ids.push(response.headers.get('x-arbor-call-id') as string);
    }
    const listed = await call('GET', `/spend/logs?api_key=${logger.json['key']}`);
    expect(listed.status).toBe(200);
    expect(listed.json.map((log: Json) => log['request_id'])).toEqual([...ids].reverse());
    expect(listed.json[2]).toEqual({
      request_id: ids[0],
      api_key: logger.json['token'],
      team_id: 'logs',
      end_user: 'u1',
      user: null,
      request_tags: ['nightly'],
      model: 'fast',
      model_group: 'fast',
      model_id: expect.any(String),
      custom_llm_provider: 'openai',
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
      spend: expect.any(Number),
      status: 'success',
      startTime: expect.any(String),
      endTime: expect.any(String),
      request_duration_ms: expect.any(Number),
      cache_hit: 'False',
      metadata: { key_alias: 'logger', status_code: 200, error_code: null, retries: 0, fallbacks: 0 },
    });
    // Metadata only: never what was asked or answered.
    expect(JSON.stringify(listed.json)).not.toContain('secret-prompt-marker');

    const page = (query: string) => call('GET', `/spend/logs?api_key=${logger.json['key']}&${query}`).then(({ json }) => json.map((log: Json) => log['request_id']));
    expect(await page('page_size=2')).toEqual([ids[2], ids[1]]);
    expect(await page('page_size=2&page=2')).toEqual([ids[0]]);
    expect(await page('end_user=u1')).toEqual([ids[2], ids[0]]);
    expect(await page('tags=batch')).toEqual([ids[1]]);
    expect(await page(`request_id=${ids[1]}`)).toEqual([ids[1]]);
    expect(await page('team_id=logs&model=fast&summarize=false')).toHaveLength(3);
  });
});
