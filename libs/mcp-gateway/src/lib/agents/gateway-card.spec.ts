import type { AgentCard } from '@a2a-js/sdk';
import { gatewayCard } from './gateway-card';
import { toolOf } from './agent-tools';

const AGENT = 'http://10.0.0.7:3010';

function agentCard(): AgentCard {
  return {
    name: 'Helpdesk agent',
    description: 'Answers questions.',
    supportedInterfaces: [
      { url: `${AGENT}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: 'http://10.0.0.8/grpc', protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
    ],
    provider: { organization: 'Support', url: `${AGENT}/about` },
    version: '1.0.0',
    documentationUrl: 'https://docs.example.com/helpdesk',
    iconUrl: `${AGENT}/icon.png`,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: true },
    securitySchemes: { agentKey: { scheme: { $case: 'apiKeySecurityScheme', value: { description: '', location: 'header', name: 'x-agent-key' } } } },
    securityRequirements: [{ schemes: { agentKey: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'answer',
        name: 'Answer questions',
        description: 'In plain text.',
        tags: [],
        examples: ['How do I reset my password?'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [{ protected: 'e30', signature: 'c2ln', header: undefined }],
  } as AgentCard;
}

describe("the agent's card as the gateway serves it", () => {
  const served = gatewayCard(agentCard(), { publicUrl: 'https://mcp.example.com/', name: 'helpdesk', agentUrls: [AGENT] });

  it("names only the gateway's interfaces, JSON-RPC and HTTP+JSON, for v1.0 and v0.3 clients", () => {
    expect(served.supportedInterfaces.map((entry) => [entry.protocolBinding, entry.protocolVersion, entry.url])).toEqual([
      ['JSONRPC', '1.0', 'https://mcp.example.com/agents/helpdesk'],
      ['HTTP+JSON', '1.0', 'https://mcp.example.com/agents/helpdesk/rest'],
      ['JSONRPC', '0.3', 'https://mcp.example.com/agents/helpdesk'],
      ['HTTP+JSON', '0.3', 'https://mcp.example.com/agents/helpdesk/rest'],
    ]);
  });

  it("keeps no URL on the agent's hosts, and URLs elsewhere as they are", () => {
    expect(JSON.stringify(served)).not.toContain('10.0.0.7');
    expect(JSON.stringify(served)).not.toContain('10.0.0.8');
    expect(served.documentationUrl).toBe('https://docs.example.com/helpdesk');
    expect(served.provider).toEqual({ organization: 'Support', url: '' });
  });

  it("asks for the gateway's bearer token instead of the agent's own scheme, and carries no signature that would not verify", () => {
    expect(Object.keys(served.securitySchemes)).toEqual(['arbor']);
    expect(served.securitySchemes['arbor'].scheme?.$case).toBe('httpAuthSecurityScheme');
    expect(served.securityRequirements).toEqual([{ schemes: { arbor: { list: [] } } }]);
    expect(served.signatures).toEqual([]);
    expect(served.capabilities?.extendedAgentCard).toBe(false);
    expect(served.skills.map((skill) => skill.id)).toEqual(['answer']);
  });
});

describe('an agent as a tool', () => {
  it('is named as the agent, described from its card and skills, and takes a message and a context id', () => {
    const tool = toolOf('helpdesk', 'The company helpdesk.', agentCard());
    expect(tool.name).toBe('helpdesk');
    expect(tool.title).toBe('Helpdesk agent');
    expect(tool.description).toContain('The company helpdesk.');
    expect(tool.description).toContain('Answers questions.');
    expect(tool.description).toContain('- Answer questions: In plain text. (e.g. "How do I reset my password?")');
    expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['message'], properties: { message: { type: 'string' }, context_id: { type: 'string' } } });
  });
});
