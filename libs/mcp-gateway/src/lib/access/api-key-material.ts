import { ApiKeyFormat } from '@arbor/api-keys';

/** Gateway API keys for MCP clients: `sk-arbor-mcp-` and 32 random bytes in base64url. */
export const MCP_API_KEYS = new ApiKeyFormat('sk-arbor-mcp-');
