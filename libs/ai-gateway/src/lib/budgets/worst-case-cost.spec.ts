import { parseGatewayConfig } from '../config/gateway-config';
import { DeploymentCooldowns } from '../deployment-cooldowns';
import { DeploymentRouter } from '../deployment-router';
import { GatewayClock } from '../gateway-clock';
import { ModelPrices } from '../pricing/model-prices';
import { WorstCaseCost } from './worst-case-cost';

function worstCaseFor(yaml: string): WorstCaseCost {
  const settings = parseGatewayConfig(yaml);
  const clock: GatewayClock = { now: () => 1_000_000 };
  const router = new DeploymentRouter(settings, new DeploymentCooldowns(settings, clock));
  return new WorstCaseCost(router, new ModelPrices(settings.deployments));
}

// 1 USD per prompt token and 10 per answer token on one deployment, 2 and 20 on the other: the dearer counts.
const worstCase = worstCaseFor(`model_list:
  - model_name: chat
    litellm_params: { model: openai/cheap, api_key: sk-a }
    model_info: { input_cost_per_token: 1, output_cost_per_token: 10 }
  - model_name: chat
    litellm_params: { model: openai/dear, api_key: sk-b }
    model_info: { input_cost_per_token: 2, output_cost_per_token: 20, max_output_tokens: 100 }
  - model_name: free
    litellm_params: { model: openai/some-model-nobody-prices, api_key: sk-c }
`);
const sized = (bytes: number) => ({ 'content-length': String(bytes) });

describe("a call's worst-case cost, held on its budgets while it is in flight", () => {
  it("counts the request's bytes as prompt tokens, a token per three bytes, and the answer's cap, at the dearest deployment", () => {
    // 30 bytes → 10 prompt tokens × 2 + 5 answer tokens × 20.
    expect(worstCase.of('chat', { max_tokens: 5 }, sized(30))).toBe(120);
    // Each family's cap: Chat Completions' newer field, the Responses API's.
    expect(worstCase.of('chat', { max_completion_tokens: 5 }, sized(30))).toBe(120);
    expect(worstCase.of('chat', { max_output_tokens: 5 }, sized(30))).toBe(120);
  });

  it('takes the largest answer a deployment names when the request names no cap (4 096 when none does), times n', () => {
    // The dearer deployment names 100; the other none, so 4 096 is the alias's largest.
    expect(worstCase.of('chat', {}, sized(3))).toBe(2 + 4096 * 20);
    expect(worstCase.of('chat', { max_tokens: 5, n: 3 }, sized(3))).toBe(2 + 15 * 20);
  });

  it('holds nothing for an alias nobody prices, an unknown alias, or a route that names none', () => {
    expect(worstCase.of('free', { max_tokens: 5 }, sized(300))).toBe(0);
    expect(worstCase.of('nope', { max_tokens: 5 }, sized(300))).toBe(0);
    expect(worstCase.of(undefined, undefined, sized(300))).toBe(0);
  });

  it('holds the bytes and the default cap for a pass-through, whose body is not read', () => {
    expect(worstCase.of('chat', undefined, sized(300))).toBe(200 + 4096 * 20);
  });
});
