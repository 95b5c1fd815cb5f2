import { Readable } from 'node:stream';
import { nativeOperation, type ProviderAnswer } from '@arbor/provider-adapters';
import { CallRouter } from '../call-router';
import { EMPTY_GATEWAY_CONFIG, type GatewayDeployment } from '../config/gateway-config';
import { DeploymentCooldowns } from '../deployment-cooldowns';
import { DeploymentRouter } from '../deployment-router';
import { OPENAI_CHAT } from '../endpoints/openai/openai-codecs';
import { GatewayClock } from '../gateway-clock';
import type { GatewaySettings } from '../gateway-settings';
import { ModelPrices } from '../pricing/model-prices';
import type { CallAccounting } from './call-accounting';
import { CallPipeline } from './call-pipeline';
import { CallStages, type CallStage, type StagePass } from './call-stage';
import { CollectedAnswer } from './collected-answer';
import type { GatewayMetrics } from './gateway-metrics';

const deployment: GatewayDeployment = { id: 'chat-1', alias: 'chat', provider: 'openai', model: 'gpt-4o-mini', modelInfo: {} };
const settings: GatewaySettings = { ...EMPTY_GATEWAY_CONFIG, deployments: [deployment] };
const JSON_ANSWER = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const STREAM_EVENTS = [
  'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n',
  'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}\n\n',
  'data: [DONE]\n\n',
];

/** A stage that writes down each of its hooks as the pipeline calls it (`<name>:<point>`). */
function recordingStage(name: string, order: number, seen: string[], options: { on?: boolean; replay?: boolean } = {}): CallStage {
  return {
    name,
    order,
    on: options.on ?? true,
    open: () => {
      seen.push(`${name}:open`);
      return recordingPass(name, seen, options.replay);
    },
  };
}

function recordingPass(name: string, seen: string[], replay = false): StagePass {
  let pieces = 0;
  return {
    beforePlan: async () => {
      seen.push(`${name}:beforePlan`);
      return replay
        ? { streamed: false, contentType: 'application/json', body: JSON_ANSWER, deploymentId: 'chat-1', provider: 'openai', headers: { 'x-replayed-by': name } }
        : undefined;
    },
    request: (body) => {
      seen.push(`${name}:request`);
      return body;
    },
    piece: () => {
      // Once per call is enough to show where pieces come in the order.
      if (pieces++ === 0) seen.push(`${name}:piece`);
    },
    answer: async () => void seen.push(`${name}:answer`),
    after: () => void seen.push(`${name}:after`),
  };
}

/** A pipeline over one OpenAI deployment whose upstream answers `answer` without a network, and the stages `register` adds. */
function pipelineWith(register: (stages: CallStages) => void, upstreamCalls: { count: number }): CallPipeline {
  const clock = new GatewayClock();
  const cooldowns = new DeploymentCooldowns(settings, clock);
  const deployments = new DeploymentRouter(settings, cooldowns);
  const stages = new CallStages();
  register(stages);
  const accounting = { admit: async () => ({ rateLimitHeaders: {}, settle: () => ({}) }) } as unknown as CallAccounting;
  const metrics = { call: () => undefined } as unknown as GatewayMetrics;
  const chat = nativeOperation('openai', 'chat');
  if (!chat) throw new Error('openai serves chat');
  jest.spyOn(chat, 'call').mockImplementation(async ({ body }) => {
    upstreamCalls.count++;
    return upstreamAnswer(body['stream'] === true);
  });
  return new CallPipeline(deployments, new CallRouter(settings, deployments, cooldowns, clock), new ModelPrices(settings.deployments), accounting, metrics, stages, settings);
}

function upstreamAnswer(streamed: boolean): ProviderAnswer {
  return streamed
    ? { status: 200, headers: {}, contentType: 'text/event-stream', body: Readable.from(STREAM_EVENTS.map((event) => Buffer.from(event))) }
    : { status: 200, headers: {}, contentType: 'application/json', body: Readable.from([Buffer.from(JSON_ANSWER)]) };
}

afterEach(() => jest.restoreAllMocks());

describe('the call pipeline runs its stages', () => {
  it.each([
    {
      call: 'a JSON answer',
      stream: false,
      order: [
        'own:beforePlan',
        'first:beforePlan',
        'second:beforePlan',
        'own:request',
        'first:request',
        'second:request',
        'own:answer',
        'first:answer',
        'second:answer',
        'own:after',
        'first:after',
        'second:after',
      ],
    },
    {
      // A chat stream carries no whole document to hand on (a Responses stream's last event does).
      call: 'a streamed chat answer',
      stream: true,
      order: [
        'own:beforePlan',
        'first:beforePlan',
        'second:beforePlan',
        'own:request',
        'first:request',
        'second:request',
        'own:piece',
        'first:piece',
        'second:piece',
        'own:after',
        'first:after',
        'second:after',
      ],
    },
  ])('at its points in order for $call: before the plan, on the request, on each piece, on the answer, after the call', async ({ stream, order }) => {
    const seen: string[] = [];
    const upstream = { count: 0 };
    // Registered out of order: the stage's own order decides, and the family's own pass goes first.
    const pipeline = pipelineWith((stages) => {
      stages.add(recordingStage('second', 20, seen));
      stages.add(recordingStage('first', 10, seen));
    }, upstream);
    const response = new CollectedAnswer();
    await pipeline.handle(OPENAI_CHAT, { kind: 'master' }, { model: 'chat', messages: [{ role: 'user', content: 'hi' }], stream }, {}, response, recordingPass('own', seen));
    expect(seen.filter((event) => !event.endsWith(':open'))).toEqual(stream ? order : order.filter((event) => !event.endsWith(':piece')));
    expect(seen.slice(0, 2)).toEqual(['first:open', 'second:open']);
    expect(upstream.count).toBe(1);
    expect(response.status).toBe(200);
  });

  it('answers from the first stage that has an answer before the plan, without an upstream or later hooks', async () => {
    const seen: string[] = [];
    const upstream = { count: 0 };
    const pipeline = pipelineWith((stages) => {
      stages.add(recordingStage('keeper', 10, seen, { replay: true }));
      stages.add(recordingStage('later', 20, seen));
    }, upstream);
    const response = new CollectedAnswer();
    await pipeline.handle(OPENAI_CHAT, { kind: 'master' }, { model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, {}, response);
    expect(seen).toEqual(['keeper:open', 'later:open', 'keeper:beforePlan']);
    expect(upstream.count).toBe(0);
    expect(response.text()).toBe(JSON_ANSWER);
  });

  it('never opens a stage that is off', async () => {
    const seen: string[] = [];
    const upstream = { count: 0 };
    const pipeline = pipelineWith((stages) => stages.add(recordingStage('off', 10, seen, { on: false })), upstream);
    await pipeline.handle(OPENAI_CHAT, { kind: 'master' }, { model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, {}, new CollectedAnswer());
    expect(seen).toEqual([]);
    expect(upstream.count).toBe(1);
  });
});
