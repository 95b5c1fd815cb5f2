import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@arbor/config';
import { McpRegistryModule } from './mcp-registry.module';

describe('McpRegistryModule', () => {
  const file = (text: string): string => {
    const configFile = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-module-')), 'gateway.yaml');
    writeFileSync(configFile, text);
    return configFile;
  };

  it('stops the start when MCPGW_CONFIG gives headers and MCPGW_SECRETS_KEY is not set', () => {
    const configFile = file('upstreams: [{ name: tickets, url: "http://127.0.0.1:3004/mcp", headers: { x-api-key: k } }]');
    let refused: unknown;
    try {
      McpRegistryModule.forOptions({ configFile, allowLinkLocal: false });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).lines()).toEqual(['MCPGW_SECRETS_KEY: is needed to store the headers MCPGW_CONFIG gives the upstream "tickets"']);
  });

  it('stops the start on a bad MCPGW_CONFIG before anything connects', () => {
    expect(() => McpRegistryModule.forOptions({ configFile: file('upstreams: [{ name: x }]'), allowLinkLocal: false })).toThrow('MCPGW_CONFIG: upstreams[0].url: is required');
  });
});
