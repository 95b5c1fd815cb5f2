import type { AgentCard, AgentInterface } from '@a2a-js/sdk';

/** Where the gateway serves an agent: JSON-RPC at the base, HTTP+JSON under `/rest`, the card at the well-known path under the base. */
export function agentBaseUrl(publicUrl: string, name: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/agents/${encodeURIComponent(name)}`;
}

export const GATEWAY_SECURITY_SCHEME = 'arbor';

/**
 * The agent's card as the gateway serves it: every interface is the gateway's (JSON-RPC and
 * HTTP+JSON, for A2A v1.0 and v0.3 clients alike, whatever the agent itself speaks), no URL that
 * leads to the agent's own host is kept, and the security the card asks for is the gateway's (a
 * person's token or a gateway API key as a bearer token), not the agent's. A signature of the
 * agent's would no longer verify over the rewritten card, so none is served.
 */
export function gatewayCard(card: AgentCard, options: { publicUrl: string; name: string; agentUrls: readonly string[] }): AgentCard {
  const base = agentBaseUrl(options.publicUrl, options.name);
  const agentOrigins = new Set([...options.agentUrls, ...card.supportedInterfaces.map((entry) => entry.url)].flatMap((url) => origin(url)));
  const away = (url: string | undefined) => (url !== undefined && url !== '' && !origin(url).some((o) => agentOrigins.has(o)) ? url : undefined);
  const interfaces = (version: string): AgentInterface[] => [
    { url: base, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: version },
    { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: version },
  ];
  const documentationUrl = away(card.documentationUrl);
  const iconUrl = away(card.iconUrl);
  return {
    ...card,
    supportedInterfaces: [...interfaces('1.0'), ...interfaces('0.3')],
    provider: card.provider ? { organization: card.provider.organization, url: away(card.provider.url) ?? '' } : undefined,
    documentationUrl,
    iconUrl,
    capabilities: card.capabilities ? { ...card.capabilities, extendedAgentCard: false } : card.capabilities,
    securitySchemes: {
      [GATEWAY_SECURITY_SCHEME]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description: "A person's token from the suite's identity provider (audience mcp-gateway), or a gateway API key (sk-arbor-mcp-…).",
            scheme: 'Bearer',
            bearerFormat: 'JWT',
          },
        },
      },
    } as AgentCard['securitySchemes'],
    securityRequirements: [{ schemes: { [GATEWAY_SECURITY_SCHEME]: { list: [] } } }],
    skills: card.skills.map((skill) => ({ ...skill, securityRequirements: [] })),
    signatures: [],
  };
}

function origin(url: string): string[] {
  try {
    return [new URL(url).origin];
  } catch {
    return [];
  }
}
