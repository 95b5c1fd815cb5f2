// The Realtime API through the gateway: WebSocket sessions relayed to OpenAI and Azure OpenAI
// (tools/fake-providers speaks their realtime events) with the gateway's virtual key, spend from
// each response.done, limits at the upgrade, either side's close ending the other; WebRTC session
// creation passed on. The official SDK's realtime class insists on wss://, so sessions use the
// `ws` client it wraps, as a Node application would.
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { asMaster, GatewayOnFakes, MASTER_KEY, rejectionOf, sdkClient, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const PROVIDER_KEY = 'sk-provider-realtime-secret';
const AZURE_KEY = 'azure-realtime-secret';
// gpt-realtime's list prices, USD per token.
const PRICE = { text: 4e-6, cached: 0.4e-6, audio: 32e-6, textOut: 16e-6, audioOut: 64e-6 };

interface RealtimeUsage {
  input_tokens: number;
  output_tokens: number;
  input_token_details: { text_tokens: number; audio_tokens: number; cached_tokens: number; cached_tokens_details: { audio_tokens: number } };
  output_token_details: { text_tokens: number; audio_tokens: number };
}

type RealtimeEvent = { type: string; [field: string]: unknown };

/** A realtime session as a client holds it: its socket and every event it received so far. */
class Session {
  readonly events: RealtimeEvent[] = [];
  private waiters: (() => void)[] = [];
  closed: { code: number } | undefined;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.events.push(JSON.parse(data.toString()) as RealtimeEvent);
      this.wake();
    });
    socket.on('close', (code) => {
      this.closed = { code };
      this.wake();
    });
  }

  send(event: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(event));
  }

  /** The next event of `type` after the `after`-th event (the events seen so far, by default). */
  async next(type: string, after = this.events.length): Promise<RealtimeEvent> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = this.events.slice(after).find((event) => event.type === type);
      if (found) return found;
      if (this.closed || Date.now() > deadline) throw new Error(`no ${type} event (closed: ${JSON.stringify(this.closed)})`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  async untilClosed(): Promise<{ code: number }> {
    const deadline = Date.now() + 5000;
    while (!this.closed && Date.now() < deadline) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (!this.closed) throw new Error('the session did not close');
    return this.closed;
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }
}

describe('Realtime API (WebSocket relay)', () => {
  let running: GatewayOnFakes;

  beforeAll(async () => {
    running = await startGatewayOnFakes(
      (fake) => `
model_list:
  - model_name: voice
    litellm_params:
      model: openai/gpt-realtime
      api_base: ${fake}/openai/v1
      api_key: ${PROVIDER_KEY}
  - model_name: voice-azure
    litellm_params:
      model: azure/my-realtime
      api_base: ${fake}/azure
      api_key: ${AZURE_KEY}
      api_version: 2025-04-01-preview
    model_info:
      base_model: gpt-realtime
  - model_name: voice-short
    litellm_params:
      model: openai/close-after-1
      api_base: ${fake}/openai/v1
      api_key: ${PROVIDER_KEY}
  - model_name: claude
    litellm_params:
      model: anthropic/claude-sonnet-4-5
      api_base: ${fake}/anthropic
      api_key: sk-ant

guardrails:
  - guardrail_name: realtime-filter
    litellm_params:
      guardrail: litellm_content_filter
      mode: pre_call
      patterns:
        - { pattern_type: prebuilt, pattern_name: email, action: MASK }
        - { pattern_type: prebuilt, pattern_name: us_ssn, action: BLOCK }
  - guardrail_name: realtime-answers
    litellm_params:
      guardrail: litellm_content_filter
      mode: post_call
      blocked_words:
        - { keyword: fake realtime, action: MASK }
        - { keyword: answer 2, action: BLOCK }
`,
    );
  });

  afterAll(() => stopGatewayOnFakes(running));

  const newKey = async (settings: Record<string, unknown> = {}): Promise<{ id: string; key: string }> => {
    const created = await fetch(`${running.gateway.url}/api/v1/keys`, { method: 'POST', headers: asMaster, body: JSON.stringify({ project: 'realtime', ...settings }) });
    return (await created.json()) as { id: string; key: string };
  };

  const socketUrl = (alias: string) => `${running.gateway.url.replace(/^http/, 'ws')}/v1/realtime?model=${encodeURIComponent(alias)}`;

  /** Opens a session (Authorization: Bearer, as server-side clients do, unless `protocols` carry the key). */
  const open = (alias: string, key: string | undefined, protocols?: string[]): Promise<Session> =>
    new Promise((resolve, reject) => {
      const socket = new WebSocket(socketUrl(alias), protocols ?? [], key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
      const session = new Session(socket);
      socket.once('open', () => resolve(session));
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${response.statusCode}`), { status: response.statusCode, body: JSON.parse(body) as unknown })));
      });
      socket.once('error', reject);
    });

  /** One turn: a user message, response.create, and the response.done that ends it. */
  const turn = async (session: Session, text: string): Promise<{ done: RealtimeEvent; deltas: string }> => {
    const before = session.events.length;
    session.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    session.send({ type: 'response.create' });
    const done = await session.next('response.done', before);
    const deltas = session.events
      .slice(before)
      .filter((event) => event.type === 'response.output_text.delta')
      .map((event) => String(event['delta']))
      .join('');
    return { done, deltas };
  };

  const spendOf = async (keyId: string, requests: number): Promise<{ spend: number; totals: Record<string, number> }> => {
    const deadline = Date.now() + 5000;
    let report: { spend: number; totals: Record<string, number> } | undefined;
    while (Date.now() < deadline) {
      report = (await (await fetch(`${running.gateway.url}/api/v1/keys/${keyId}/spend`, { headers: asMaster })).json()) as typeof report;
      if (report && report.totals['requests'] >= requests) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return report as { spend: number; totals: Record<string, number> };
  };

  const costOf = (usage: RealtimeUsage): number => {
    const cached = usage.input_token_details.cached_tokens;
    const audioIn = usage.input_token_details.audio_tokens - usage.input_token_details.cached_tokens_details.audio_tokens;
    const audioOut = usage.output_token_details.audio_tokens;
    return (
      (usage.input_tokens - cached - audioIn) * PRICE.text +
      audioIn * PRICE.audio +
      cached * PRICE.cached +
      (usage.output_tokens - audioOut) * PRICE.textOut +
      audioOut * PRICE.audioOut
    );
  };

  const seenRealtime = async () => (await running.fake.requests()).filter((request) => request.path.includes('realtime'));

  it('relays a session of two turns with the virtual key, and records the spend of each response.done', async () => {
    const key = await newKey();
    const session = await open('voice', key.key);
    const created = await session.next('session.created', 0);
    expect((created['session'] as { model: string }).model).toBe('gpt-realtime');

    const first = await turn(session, 'Hello there');
    const second = await turn(session, 'And again');
    expect(first.deltas.trim()).toBe('fake realtime answer 1 from gpt-realtime');
    expect(second.deltas.trim()).toBe('fake realtime answer 2 from gpt-realtime');
    session.socket.close();

    // The provider got its own key and the client's events as sent; the client never saw the provider key.
    const upstream = (await seenRealtime()).at(-1);
    expect(upstream?.path).toBe('/openai/v1/realtime?model=gpt-realtime');
    expect(upstream?.headers['authorization']).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(upstream?.body).toContain('"text":"Hello there"');
    expect(JSON.stringify(session.events)).not.toContain(PROVIDER_KEY);

    const usages = [first.done, second.done].map((done) => (done['response'] as { usage: RealtimeUsage }).usage);
    const report = await spendOf(key.id, 2);
    expect(report.totals['requests']).toBe(2);
    expect(report.totals['prompt_tokens']).toBe(usages[0].input_tokens + usages[1].input_tokens);
    expect(report.totals['completion_tokens']).toBe(usages[0].output_tokens + usages[1].output_tokens);
    expect(report.spend).toBeCloseTo(costOf(usages[0]) + costOf(usages[1]), 10);
  });

  it('takes the key from the browser subprotocol and reaches an Azure OpenAI realtime deployment', async () => {
    const key = await newKey();
    const session = await open('voice-azure', undefined, ['realtime', `openai-insecure-api-key.${key.key}`, 'openai-beta.realtime-v1']);
    // The gateway answers with the realtime subprotocol, never the one carrying the key.
    expect(session.socket.protocol).toBe('realtime');
    await session.next('session.created', 0);
    const { deltas } = await turn(session, 'Hi Azure');
    expect(deltas.trim()).toBe('fake realtime answer 1 from my-realtime');
    session.socket.close();

    const upstream = (await seenRealtime()).at(-1);
    expect(upstream?.path).toBe('/azure/openai/realtime?api-version=2025-04-01-preview&deployment=my-realtime');
    expect(upstream?.headers['api-key']).toBe(AZURE_KEY);
    expect(upstream?.headers['openai-beta']).toBe('realtime=v1');
    expect((await spendOf(key.id, 1)).spend).toBeGreaterThan(0);
  });

  it('refuses the upgrade with 401 in the OpenAI-format envelope when the key is not valid', async () => {
    const error = (await rejectionOf(open('voice', 'sk-not-a-key'))) as { status?: number; body?: { error?: { code?: string } } };
    expect(error.status).toBe(401);
    expect(error.body?.error?.code).toBe('invalid_api_key');
    const missing = (await rejectionOf(open('voice', undefined))) as { status?: number };
    expect(missing.status).toBe(401);
  });

  it('refuses an upgrade whose query string holds a NUL with 400 naming the parameter, before the key is looked at', async () => {
    const error = (await rejectionOf(open('voice\u0000', 'sk-not-a-key'))) as { status?: number; body?: { error?: { code?: string; param?: string } } };
    expect(error.status).toBe(400);
    expect(error.body?.error).toMatchObject({ code: 'invalid_request', param: 'model' });
  });

  it('refuses an alias whose provider offers no realtime sessions with 400', async () => {
    const error = (await rejectionOf(open('claude', MASTER_KEY))) as { status?: number; body?: { error?: { message?: string } } };
    expect(error.status).toBe(400);
    expect(error.body?.error?.message).toContain('no realtime');
  });

  it('ends the upstream session when the client closes', async () => {
    const session = await open('voice', MASTER_KEY);
    await session.next('session.created', 0);
    const path = (await seenRealtime()).at(-1)?.path;
    session.socket.close();
    const deadline = Date.now() + 5000;
    let aborted = false;
    while (!aborted && Date.now() < deadline) {
      aborted = (await seenRealtime()).some((request) => request.path === path && request.aborted);
      if (!aborted) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(aborted).toBe(true);
  });

  it('ends the client session when the upstream closes it', async () => {
    const session = await open('voice-short', MASTER_KEY);
    await session.next('session.created', 0);
    await turn(session, 'Only one');
    expect((await session.untilClosed()).code).toBe(1000);
  });

  it('checks the key budget at the upgrade and after each response', async () => {
    // Less than one response costs: the first is let through, the key is then over its budget.
    const key = await newKey({ max_budget: 0.00001 });
    const session = await open('voice', key.key);
    await session.next('session.created', 0);
    await turn(session, 'Spend it');
    const refusal = await session.next('error', 0);
    expect((refusal['error'] as { code?: string }).code).toBe('budget_exceeded');
    await session.untilClosed();
    await spendOf(key.id, 1);
    const error = (await rejectionOf(open('voice', key.key))) as { status?: number; body?: { error?: { code?: string } } };
    expect(error.status).toBe(400);
    expect(error.body?.error?.code).toBe('budget_exceeded');
  });

  it("checks the text of a guarded key's client events: masked before the upstream sees them, refused with an error event that ends nothing else", async () => {
    const { key } = await newKey({ guardrails: ['realtime-filter'] });
    const session = await open('voice', key);
    await session.next('session.created', 0);
    const marker = randomUUID();
    session.send({ type: 'session.update', session: { type: 'realtime', instructions: `answer to boss@example.com ${marker}` } });
    session.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `mail ann@example.com ${marker}` }] } });
    const added = await session.next('conversation.item.added');
    expect(JSON.stringify(added)).toContain(`mail [EMAIL_REDACTED] ${marker}`);
    const blocked = randomUUID();
    const before = session.events.length;
    session.send({
      type: 'conversation.item.create',
      event_id: 'evt_blocked',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `SSN 123-45-6789 ${blocked}` }] },
    });
    const error = await session.next('error', before);
    expect(error['error']).toMatchObject({ code: 'guardrail_violation', event_id: 'evt_blocked', message: expect.stringContaining('us_ssn') });
    expect(JSON.stringify(error)).not.toContain('123-45-6789');
    // The session goes on: the next turn is answered.
    session.send({ type: 'response.create', response: { instructions: `sign as ops@example.com ${marker}` } });
    await session.next('response.done', before);
    const seen = (await seenRealtime()).filter((request) => request.body.includes(marker));
    const upstreamSaw = seen.map((request) => request.body).join('\n');
    expect(upstreamSaw).toContain(`answer to [EMAIL_REDACTED] ${marker}`);
    expect(upstreamSaw).toContain(`sign as [EMAIL_REDACTED] ${marker}`);
    expect(upstreamSaw).not.toMatch(/boss@|ann@|ops@/);
    expect((await running.fake.requests()).some((request) => request.body.includes(blocked))).toBe(false);
    session.socket.close();
  });

  it("checks the server's text deltas of a guarded key's session: masked in every event, a blocked response replaced by an error event, the next one answered", async () => {
    const { id, key } = await newKey({ guardrails: ['realtime-answers'] });
    const session = await open('voice', key);
    await session.next('session.created', 0);
    const first = await turn(session, 'hello');
    expect(first.deltas).toBe('[KEYWORD_REDACTED] answer 1 from gpt-realtime ');
    expect(JSON.stringify(session.events)).not.toContain('fake realtime');
    expect(JSON.stringify(first.done)).toContain('[KEYWORD_REDACTED] answer 1');
    const before = session.events.length;
    session.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'again' }] } });
    session.send({ type: 'response.create' });
    const refused = await session.next('error', before);
    expect(refused['error']).toMatchObject({ code: 'guardrail_violation', message: expect.stringContaining('realtime-answers') });
    expect(JSON.stringify(session.events.slice(before))).not.toMatch(/answer 2/);
    const third = await turn(session, 'once more');
    expect(third.deltas).toBe('[KEYWORD_REDACTED] answer 3 from gpt-realtime ');
    // Every response counted, the refused one too.
    expect((await spendOf(id, 3)).totals['requests']).toBe(3);
    session.socket.close();
  });

  it('passes WebRTC client secret creation on for an OpenAI alias', async () => {
    const key = await newKey();
    const secret = await sdkClient(running.gateway, key.key).realtime.clientSecrets.create({ session: { type: 'realtime', model: 'voice' } });
    expect(secret.value).toMatch(/^ek_/);
    const upstream = (await running.fake.requests()).filter((request) => request.path.endsWith('/realtime/client_secrets')).at(-1);
    expect(upstream?.headers['authorization']).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(JSON.parse(upstream?.body ?? '{}')).toEqual({ session: { type: 'realtime', model: 'gpt-realtime' } });
  });
});
