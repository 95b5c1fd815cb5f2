import Anthropic from '@anthropic-ai/sdk';
import path from 'node:path';
import { loadGatewayConfigFile } from './gateway-config';

// npm start's AIGW_CONFIG (tools/dev/ai-gateway.demo.yaml), with the addresses npm start passes it.
const DEMO_CONFIG = path.join(__dirname, '../../../../../tools/dev/ai-gateway.demo.yaml');
const FAKE_ENV = Object.fromEntries(
  ['OPENAI', 'ANTHROPIC', 'GEMINI', 'AZURE', 'BEDROCK', 'VERTEX'].map((provider) => [`FAKE_${provider}_API_BASE`, `http://127.0.0.1:9/${provider.toLowerCase()}`]),
);

/** What the Anthropic SDK prints when a client names `model` (it warns on models near their end of life). */
async function sdkWarningsFor(model: string): Promise<string[]> {
  const warnings: string[] = [];
  const warn = jest.spyOn(console, 'warn').mockImplementation((...parts: unknown[]) => void warnings.push(parts.join(' ')));
  try {
    const answer = { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } };
    const client = new Anthropic({ apiKey: 'sk-demo', baseURL: 'http://127.0.0.1:9', fetch: async () => Response.json(answer) });
    await client.messages.create({ model, max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] });
  } finally {
    warn.mockRestore();
  }
  return warnings;
}

describe("npm start's demo config", () => {
  const config = loadGatewayConfigFile(DEMO_CONFIG, { ...FAKE_ENV, FAKE_VERTEX_CREDENTIALS: '{}' });
  const claude = config.deployments.filter((deployment) => deployment.provider === 'anthropic');

  it('serves Claude on current models, which the Anthropic SDK names without a deprecation warning', async () => {
    expect(claude.length).toBeGreaterThan(0);
    for (const deployment of claude) expect({ model: deployment.model, warnings: await sdkWarningsFor(deployment.model) }).toEqual({ model: deployment.model, warnings: [] });
    // The demo's own Claude alias is the current model's name, so a client naming it gets no warning either.
    expect(claude.map((deployment) => deployment.alias)).toContain('claude-sonnet-4-6');
    expect(await sdkWarningsFor('claude-sonnet-4-6')).toEqual([]);
  });

  it('keeps the earlier alias claude-sonnet-4-5 answering, on the current model', () => {
    expect(claude.filter((deployment) => deployment.alias === 'claude-sonnet-4-5').map((deployment) => deployment.model)).toEqual(['claude-sonnet-4-6']);
  });
});
