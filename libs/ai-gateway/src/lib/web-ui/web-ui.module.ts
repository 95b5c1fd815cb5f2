import { DynamicModule, Module } from '@nestjs/common';
import { ProductWebUiModule, type ProductWebUiOptions } from '@arbor/platform';

/**
 * The pages of the AI gateway's UI (apps/ai-gateway-web's routes, and its sign-in callback). Only
 * these paths, asked for as HTML, are the UI: every other path is the gateway's, as before.
 */
export const AI_GATEWAY_UI_PAGES = /^\/(keys(\/[^/]+)?|usage|catalogue|calls|playground|auth\/callback)?\/?$/;

export type AiGatewayWebUiOptions = Pick<ProductWebUiOptions, 'webRoot' | 'signIn'>;

/** The AI gateway's UI at `/` and the public facts it starts from (`GET /api/v1/ui/config`), as every product serves its own. */
@Module({})
export class AiGatewayWebUiModule {
  static forRoot(options: AiGatewayWebUiOptions): DynamicModule {
    return {
      module: AiGatewayWebUiModule,
      imports: [
        ProductWebUiModule.forRoot({
          ...options,
          title: 'AI gateway',
          signInSettings: ['AIGW_OIDC_ISSUER_URL', 'AIGW_CONTROL_PLANE_URL', 'AIGW_M2M_CLIENT_ID', 'AIGW_M2M_CLIENT_SECRET'],
          pages: AI_GATEWAY_UI_PAGES,
        }),
      ],
    };
  }
}
