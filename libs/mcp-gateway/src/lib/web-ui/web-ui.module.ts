import { DynamicModule, Module } from '@nestjs/common';
import { ProductWebUiModule, type ProductWebUiOptions } from '@arbor/platform';

/**
 * The pages of the MCP gateway's UI (apps/mcp-gateway-web's routes, and its sign-in callback).
 * Only these paths, asked for as HTML, are the UI: `/mcp`, `/servers/{id}/mcp`, `/sse`, `/api/v1/*`
 * and every other path stay the gateway's, as before (none of these names is an MCP path; `/agents`
 * alone is the page, `/agents/{name}/…` the agents' A2A addresses).
 */
export const MCP_GATEWAY_UI_PAGES = /^\/(upstreams|virtual-servers|tools|keys|calls|agents|connections|auth\/callback)?\/?$/;

export type McpGatewayWebUiOptions = Pick<ProductWebUiOptions, 'webRoot' | 'signIn'>;

/** The MCP gateway's UI at `/` and the public facts it starts from (`GET /api/v1/ui/config`), as every product serves its own. */
@Module({})
export class McpGatewayWebUiModule {
  static forRoot(options: McpGatewayWebUiOptions): DynamicModule {
    return {
      module: McpGatewayWebUiModule,
      imports: [
        ProductWebUiModule.forRoot({
          ...options,
          title: 'MCP gateway',
          signInSettings: ['MCPGW_OIDC_ISSUER_URL', 'MCPGW_CONTROL_PLANE_URL', 'MCPGW_M2M_CLIENT_ID', 'MCPGW_M2M_CLIENT_SECRET'],
          pages: MCP_GATEWAY_UI_PAGES,
        }),
      ],
    };
  }
}
