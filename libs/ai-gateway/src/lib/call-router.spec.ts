// What one call goes through when deployments fail, as config.yaml's router_settings promise it:
// retries within the alias, fallbacks, context-window fallbacks, and cooldowns shared by calls.
import { ProviderError } from '@arbor/provider-adapters';
import { CallRouter } from './call-router';
import { parseGatewayConfig } from './config/gateway-config';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { CallDemand, DeploymentRouter } from './deployment-router';
import { GatewayClock } from './gateway-clock';

const unavailable = () => new ProviderError(503, 'server_error', 'The upstream is unavailable.');
const badRequest = () => new ProviderError(400, 'invalid_request_error', 'temperature must be at most 2.', null, 'temperature');
const tooLong = () => new ProviderError(400, 'invalid_request_error', "This model's maximum context length is 8192 tokens.", 'context_length_exceeded');
const unauthorized = () => new ProviderError(401, 'authentication_error', 'Incorrect API key provided.');
const contentPolicy = () => new ProviderError(400, 'invalid_request_error', 'Your request was rejected as a result of our safety system.', 'content_policy_violation');
const rateLimited = (retryAfterS: number) => new ProviderError(429, 'rate_limit_error', 'Rate limit reached.', null, null, { 'retry-after': String(retryAfterS) });

/** What each deployment answers, call after call ('ok' serves; past the end, the last answer again). */
type Answers = Record<string, (ProviderError | 'ok')[]>;

/** Where one call went: the deployments tried in order, and who served it or why it failed. */
interface Walk {
  tried: string[];
  alias: string;
  retries: number;
  fallbacks: number;
  servedBy?: string;
  timeoutMs?: number | undefined;
  /** The pause before each attempt (ms). */
  waits: number[];
  error?: { status: number; code: string | null; retryAfter?: string | undefined };
}

/** A gateway's routing from config.yaml; deployments are picked in the order they are listed. */
function gatewayWith(yaml: string) {
  let now = 1_000_000;
  const clock: GatewayClock = { now: () => now };
  const settings = parseGatewayConfig(yaml);
  const cooldowns = new DeploymentCooldowns(settings, clock);
  const router = new DeploymentRouter({ ...settings, router: { ...settings.router, routingStrategy: 'latency-based-routing' } }, cooldowns);
  settings.deployments.forEach((deployment, index) => router.observeLatency(deployment.id, 10 * (index + 1)));
  const callRouter = new CallRouter(settings, router, cooldowns, clock);
  const calls = new Map<string, number>();

  /** One call to `alias`, walked as the pipeline walks it. */
  const call = (alias: string, answers: Answers, demand: CallDemand = {}): Walk => {
    const progress = { alias, retries: 0, fallbacks: 0 };
    const plan = callRouter.plan(progress, demand);
    const tried: string[] = [];
    const waits: number[] = [];
    for (let deployment = plan.next(); deployment; deployment = plan.next()) {
      tried.push(deployment.id);
      waits.push(plan.waitMs);
      const seen = calls.get(deployment.id) ?? 0;
      calls.set(deployment.id, seen + 1);
      const list = answers[deployment.id] ?? ['ok'];
      const answer = list[Math.min(seen, list.length - 1)] ?? 'ok';
      if (answer === 'ok') return { tried, waits, servedBy: deployment.id, timeoutMs: deployment.timeoutMs, ...progress };
      plan.failed(deployment, answer);
    }
    const { status, code, headers } = plan.error;
    return { tried, waits, error: { status, code, retryAfter: headers['retry-after'] }, ...progress };
  };
  return { call, advance: (ms: number) => (now += ms) };
}

const deployment = (alias: string, id: string, extra = '') => `  - model_name: ${alias}\n    litellm_params: { model: openai/${id}${extra} }\n    model_info: { id: ${id} }\n`;
const config = (deployments: string[], routerSettings: string) => `model_list:\n${deployments.join('')}router_settings: ${routerSettings}\n`;

describe('one call through retries and fallbacks', () => {
  const chatTwice = [deployment('chat', 'chat-a'), deployment('chat', 'chat-b')];
  const withBackup = [...chatTwice, deployment('backup', 'backup-a'), deployment('long', 'long-a')];

  it.each<{ behaviour: string; yaml: string; answers: Answers; expected: Partial<Walk> }>([
    {
      behaviour: 'the first deployment serves: no retry, no fallback',
      yaml: config(chatTwice, '{ num_retries: 2 }'),
      answers: {},
      expected: { tried: ['chat-a'], servedBy: 'chat-a', alias: 'chat', retries: 0, fallbacks: 0 },
    },
    {
      behaviour: 'a retryable failure is retried on another deployment of the alias',
      yaml: config(chatTwice, '{ num_retries: 1 }'),
      answers: { 'chat-a': [unavailable()] },
      expected: { tried: ['chat-a', 'chat-b'], servedBy: 'chat-b', alias: 'chat', retries: 1, fallbacks: 0 },
    },
    {
      behaviour: 'retries stop at num_retries, and the last failure is the answer',
      yaml: config(chatTwice, '{ num_retries: 2 }'),
      answers: { 'chat-a': [unavailable()], 'chat-b': [unavailable()] },
      expected: { tried: ['chat-a', 'chat-b', 'chat-a'], error: { status: 503, code: null }, alias: 'chat', retries: 2, fallbacks: 0 },
    },
    {
      behaviour: 'without num_retries a failure is not retried',
      yaml: config(chatTwice, '{}'),
      answers: { 'chat-a': [unavailable()] },
      expected: { tried: ['chat-a'], error: { status: 503, code: null }, alias: 'chat', retries: 0, fallbacks: 0 },
    },
    {
      behaviour: 'a spent alias moves to its fallback, which serves',
      yaml: config(withBackup, '{ num_retries: 1, fallbacks: [{ chat: [backup] }] }'),
      answers: { 'chat-a': [unavailable()], 'chat-b': [unavailable()] },
      expected: { tried: ['chat-a', 'chat-b', 'backup-a'], servedBy: 'backup-a', alias: 'backup', retries: 1, fallbacks: 1 },
    },
    {
      behaviour: "the caller's own mistake (a 400) ends the call at once: no retry, no fallback",
      yaml: config(withBackup, '{ num_retries: 2, fallbacks: [{ chat: [backup] }] }'),
      answers: { 'chat-a': [badRequest()] },
      expected: { tried: ['chat-a'], error: { status: 400, code: null }, alias: 'chat', retries: 0, fallbacks: 0 },
    },
    {
      behaviour: 'a rejected credential (401) is not retried on the alias but falls back',
      yaml: config(withBackup, '{ num_retries: 2, fallbacks: [{ chat: [backup] }] }'),
      answers: { 'chat-a': [unauthorized()] },
      expected: { tried: ['chat-a', 'backup-a'], servedBy: 'backup-a', alias: 'backup', retries: 0, fallbacks: 1 },
    },
    {
      behaviour: 'a prompt too long skips the retries and the fallbacks for the context-window fallback',
      yaml: config(withBackup, '{ num_retries: 2, fallbacks: [{ chat: [backup] }], context_window_fallbacks: [{ chat: [long] }] }'),
      answers: { 'chat-a': [tooLong()] },
      expected: { tried: ['chat-a', 'long-a'], servedBy: 'long-a', alias: 'long', retries: 0, fallbacks: 1 },
    },
    {
      behaviour: 'a prompt too long with no context-window fallback answers the context error, not a fallback',
      yaml: config(withBackup, '{ num_retries: 2, fallbacks: [{ chat: [backup] }] }'),
      answers: { 'chat-a': [tooLong()] },
      expected: { tried: ['chat-a'], error: { status: 400, code: 'context_length_exceeded' }, alias: 'chat', retries: 0, fallbacks: 0 },
    },
    {
      behaviour: 'fallbacks that lead back to a tried alias stop instead of looping',
      yaml: config(withBackup, '{ fallbacks: [{ chat: [backup] }, { backup: [chat] }] }'),
      answers: { 'chat-a': [unavailable()], 'backup-a': [unavailable()] },
      expected: { tried: ['chat-a', 'backup-a'], error: { status: 503, code: null }, alias: 'backup', retries: 0, fallbacks: 1 },
    },
    {
      behaviour: "an alias spent because its deployments cooled down answers the upstream's own error, which says more",
      yaml: config([deployment('chat', 'chat-a')], '{ num_retries: 1 }'),
      answers: { 'chat-a': [rateLimited(30)] },
      expected: { tried: ['chat-a'], error: { status: 429, code: null, retryAfter: '30' }, alias: 'chat', retries: 0, fallbacks: 0 },
    },
    {
      behaviour: "an upstream's content-policy refusal is not retried but goes to content_policy_fallbacks",
      yaml: config(withBackup, '{ num_retries: 2, fallbacks: [{ chat: [backup] }], content_policy_fallbacks: [{ chat: [long] }] }'),
      answers: { 'chat-a': [contentPolicy()] },
      expected: { tried: ['chat-a', 'long-a'], servedBy: 'long-a', alias: 'long', retries: 0, fallbacks: 1 },
    },
    {
      behaviour: 'a content-policy refusal without content_policy_fallbacks is the answer: no retry, no fallback',
      yaml: config(withBackup, '{ num_retries: 2, fallbacks: [{ chat: [backup] }] }'),
      answers: { 'chat-a': [contentPolicy()] },
      expected: { tried: ['chat-a'], error: { status: 400, code: 'content_policy_violation' }, alias: 'chat', retries: 0, fallbacks: 0 },
    },
    {
      behaviour: 'an alias without fallbacks of its own falls back to default_fallbacks',
      yaml: config(withBackup, '{ default_fallbacks: [backup], fallbacks: [{ long: [chat] }] }'),
      answers: { 'chat-a': [unavailable()] },
      expected: { tried: ['chat-a', 'backup-a'], servedBy: 'backup-a', alias: 'backup', fallbacks: 1 },
    },
    {
      behaviour: 'max_fallbacks caps the fallback aliases one call tries',
      yaml: config(withBackup, '{ max_fallbacks: 1, fallbacks: [{ chat: [backup, long] }] }'),
      answers: { 'chat-a': [unavailable()], 'backup-a': [unavailable()] },
      expected: { tried: ['chat-a', 'backup-a'], error: { status: 503, code: null }, alias: 'backup', fallbacks: 1 },
    },
    {
      behaviour: 'fallbacks written in litellm_settings serve as router_settings fallbacks',
      yaml: `${config(withBackup, '{ num_retries: 0 }')}litellm_settings: { fallbacks: [{ chat: [backup] }] }\n`,
      answers: { 'chat-a': [unavailable()] },
      expected: { tried: ['chat-a', 'backup-a'], servedBy: 'backup-a', alias: 'backup', fallbacks: 1 },
    },
    {
      behaviour: 'retry_policy retries a kind of failure as often as it says, instead of num_retries',
      yaml: config(chatTwice, '{ num_retries: 3, retry_policy: { RateLimitErrorRetries: 0, AuthenticationErrorRetries: 1 } }'),
      answers: { 'chat-a': [rateLimited(0)], 'chat-b': [unauthorized()] },
      expected: { tried: ['chat-a'], error: { status: 429, code: null, retryAfter: '0' }, retries: 0 },
    },
    {
      behaviour: 'retry_policy retries even a failure num_retries never retries (a 401), on another deployment',
      yaml: config(chatTwice, '{ retry_policy: { AuthenticationErrorRetries: 1 } }'),
      answers: { 'chat-a': [unauthorized()] },
      expected: { tried: ['chat-a', 'chat-b'], servedBy: 'chat-b', retries: 1 },
    },
    {
      behaviour: "retry_policy's BadRequestErrorRetries retries the caller's 400 (LiteLLM's rule), still without a fallback",
      yaml: config(withBackup, '{ retry_policy: { BadRequestErrorRetries: 1 }, fallbacks: [{ chat: [backup] }] }'),
      answers: { 'chat-a': [badRequest()], 'chat-b': [badRequest()] },
      expected: { tried: ['chat-a', 'chat-b'], error: { status: 400, code: null }, retries: 1, fallbacks: 0 },
    },
    {
      behaviour: 'a kind retry_policy does not name follows num_retries',
      yaml: config(chatTwice, '{ num_retries: 1, retry_policy: { RateLimitErrorRetries: 0 } }'),
      answers: { 'chat-a': [unavailable()] },
      expected: { tried: ['chat-a', 'chat-b'], servedBy: 'chat-b', retries: 1 },
    },
    {
      behaviour: "model_group_retry_policy is the alias's own, over retry_policy",
      yaml: config(chatTwice, '{ retry_policy: { InternalServerErrorRetries: 0 }, model_group_retry_policy: { chat: { InternalServerErrorRetries: 1 } } }'),
      answers: { 'chat-a': [unavailable()] },
      expected: { tried: ['chat-a', 'chat-b'], servedBy: 'chat-b', retries: 1 },
    },
    {
      behaviour: "retry_after pauses before retrying an alias's only deployment",
      yaml: config([deployment('chat', 'chat-a')], '{ num_retries: 2, retry_after: 2 }'),
      answers: { 'chat-a': [unavailable(), unavailable(), 'ok'] },
      expected: { tried: ['chat-a', 'chat-a', 'chat-a'], waits: [0, 2000, 2000], servedBy: 'chat-a', retries: 2 },
    },
    {
      behaviour: 'retry_after does not hold back a retry that another deployment takes',
      yaml: config(chatTwice, '{ num_retries: 1, retry_after: 2 }'),
      answers: { 'chat-a': [unavailable()] },
      expected: { tried: ['chat-a', 'chat-b'], waits: [0, 0], servedBy: 'chat-b' },
    },
    {
      behaviour: "a deployment's own max_retries tries it again before the router moves on",
      yaml: config([deployment('chat', 'chat-a', ', max_retries: 1'), deployment('chat', 'chat-b')], '{}'),
      answers: { 'chat-a': [unavailable(), 'ok'] },
      expected: { tried: ['chat-a', 'chat-a'], servedBy: 'chat-a', alias: 'chat', retries: 1, fallbacks: 0 },
    },
  ])('$behaviour', ({ yaml, answers, expected }) => {
    expect(gatewayWith(yaml).call('chat', answers)).toEqual(expect.objectContaining(expected));
  });

  it("gives a deployment without a timeout of its own the router's timeout", () => {
    const gateway = gatewayWith(config([deployment('chat', 'chat-a'), deployment('quick', 'quick-a', ', timeout: 5')], '{ timeout: 30 }'));
    expect(gateway.call('chat', {}).timeoutMs).toBe(30_000);
    expect(gateway.call('quick', {}).timeoutMs).toBe(5_000);
    const again = gatewayWith(config([deployment('chat', 'chat-a', ', max_retries: 1')], '{ timeout: 30 }'));
    expect(again.call('chat', { 'chat-a': [unavailable(), 'ok'] })).toMatchObject({ tried: ['chat-a', 'chat-a'], timeoutMs: 30_000 });
  });
});

describe('checks before the call (enable_pre_call_checks) and model_group_alias', () => {
  const windowed = (alias: string, id: string, window: number) =>
    `  - model_name: ${alias}\n    litellm_params: { model: openai/${id} }\n    model_info: { id: ${id}, max_input_tokens: ${window} }\n`;

  it('sends a long prompt past deployments too small for it, to the one that fits', () => {
    const gateway = gatewayWith(config([windowed('chat', 'chat-small', 1000), windowed('chat', 'chat-large', 100_000)], '{ enable_pre_call_checks: true }'));
    expect(gateway.call('chat', {}, { promptTokens: 5_000 })).toMatchObject({ tried: ['chat-large'], servedBy: 'chat-large' });
  });

  it('makes a prompt no deployment fits a context-window error before any upstream call, which goes to context_window_fallbacks', () => {
    const deployments = [windowed('chat', 'chat-small', 1000), windowed('long', 'long-a', 200_000)];
    const withFallback = gatewayWith(config(deployments, '{ enable_pre_call_checks: true, context_window_fallbacks: [{ chat: [long] }] }'));
    expect(withFallback.call('chat', {}, { promptTokens: 5_000 })).toMatchObject({ tried: ['long-a'], servedBy: 'long-a', alias: 'long', fallbacks: 1 });
    const without = gatewayWith(config(deployments, '{ enable_pre_call_checks: true }'));
    expect(without.call('chat', {}, { promptTokens: 5_000 })).toMatchObject({ tried: [], error: { status: 400, code: 'context_length_exceeded' } });
  });

  it('uses the fallbacks of the group a model_group_alias names when the alias has none of its own', () => {
    const gateway = gatewayWith(
      config([deployment('chat', 'chat-a'), deployment('backup', 'backup-a')], '{ model_group_alias: { my-chat: chat }, fallbacks: [{ chat: [backup] }] }'),
    );
    expect(gateway.call('my-chat', { 'chat-a': [unavailable()] })).toMatchObject({ tried: ['chat-a', 'backup-a'], servedBy: 'backup-a', fallbacks: 1 });
  });
});

describe('cooldowns, shared by the calls that follow', () => {
  it('cools nothing down with disable_cooldowns, not even after a Retry-After', () => {
    const gateway = gatewayWith(config([deployment('chat', 'chat-a'), deployment('chat', 'chat-b')], '{ allowed_fails: 1, disable_cooldowns: true }'));
    expect(gateway.call('chat', { 'chat-a': [rateLimited(30), 'ok'] })).toMatchObject({ tried: ['chat-a'], error: { status: 429 } });
    expect(gateway.call('chat', {})).toMatchObject({ tried: ['chat-a'], servedBy: 'chat-a' });
  });

  it('skips a deployment that failed allowed_fails times, until cooldown_time has passed', () => {
    const gateway = gatewayWith(config([deployment('chat', 'chat-a'), deployment('chat', 'chat-b')], '{ allowed_fails: 1, cooldown_time: 10 }'));
    expect(gateway.call('chat', { 'chat-a': [unavailable(), 'ok'] })).toMatchObject({ tried: ['chat-a'], error: { status: 503 } });
    expect(gateway.call('chat', {})).toMatchObject({ tried: ['chat-b'], servedBy: 'chat-b' });
    gateway.advance(10_000);
    expect(gateway.call('chat', {})).toMatchObject({ tried: ['chat-a'], servedBy: 'chat-a' });
  });

  it('counts a kind of failure against its own allowance in allowed_fails_policy, others against allowed_fails', () => {
    const gateway = gatewayWith(
      config([deployment('chat', 'chat-a'), deployment('chat', 'chat-b')], '{ allowed_fails: 1, cooldown_time: 10, allowed_fails_policy: { InternalServerErrorAllowedFails: 3 } }'),
    );
    const answers = { 'chat-a': [unavailable(), unavailable(), unavailable(), 'ok' as const] };
    for (let call = 0; call < 3; call++) expect(gateway.call('chat', answers)).toMatchObject({ tried: ['chat-a'] });
    expect(gateway.call('chat', answers)).toMatchObject({ tried: ['chat-b'], servedBy: 'chat-b' });
    gateway.advance(10_000);
    expect(gateway.call('chat', { 'chat-a': [unauthorized()] })).toMatchObject({ tried: ['chat-a'], error: { status: 401 } });
    expect(gateway.call('chat', {})).toMatchObject({ tried: ['chat-b'] });
  });

  it('counts failures up to allowed_fails before cooling a deployment', () => {
    const gateway = gatewayWith(config([deployment('chat', 'chat-a'), deployment('chat', 'chat-b')], '{ allowed_fails: 2, cooldown_time: 10 }'));
    const answers = { 'chat-a': [unavailable(), unavailable(), 'ok' as const] };
    expect(gateway.call('chat', answers)).toMatchObject({ tried: ['chat-a'] });
    expect(gateway.call('chat', answers)).toMatchObject({ tried: ['chat-a'] });
    expect(gateway.call('chat', answers)).toMatchObject({ tried: ['chat-b'], servedBy: 'chat-b' });
  });

  it('never cools the only deployment of an alias for its failures: the next call tries it again', () => {
    const gateway = gatewayWith(config([deployment('chat', 'chat-a')], '{ allowed_fails: 1 }'));
    expect(gateway.call('chat', { 'chat-a': [unavailable(), 'ok'] })).toMatchObject({ error: { status: 503 } });
    expect(gateway.call('chat', { 'chat-a': [unavailable(), 'ok'] })).toMatchObject({ servedBy: 'chat-a' });
  });

  it("honours a 429's Retry-After even on the only deployment: calls meanwhile answer 429 no_deployments_available with the wait", () => {
    const gateway = gatewayWith(config([deployment('chat', 'chat-a')], '{ cooldown_time: 5 }'));
    expect(gateway.call('chat', { 'chat-a': [rateLimited(30), 'ok'] })).toMatchObject({ error: { status: 429 } });
    expect(gateway.call('chat', {})).toMatchObject({ tried: [], error: { status: 429, code: 'no_deployments_available', retryAfter: '30' } });
    gateway.advance(20_000);
    expect(gateway.call('chat', {})).toMatchObject({ error: { code: 'no_deployments_available', retryAfter: '10' } });
    gateway.advance(10_000);
    expect(gateway.call('chat', {})).toMatchObject({ servedBy: 'chat-a' });
  });

  it('falls back when every deployment of the alias is cooling', () => {
    const gateway = gatewayWith(config([deployment('chat', 'chat-a'), deployment('backup', 'backup-a')], '{ fallbacks: [{ chat: [backup] }] }'));
    gateway.call('chat', { 'chat-a': [rateLimited(60), 'ok'], 'backup-a': [unavailable()] });
    expect(gateway.call('chat', {})).toMatchObject({ tried: ['backup-a'], servedBy: 'backup-a', alias: 'backup', fallbacks: 1 });
  });
});
