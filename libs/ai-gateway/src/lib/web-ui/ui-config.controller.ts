import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@arbor/platform';

export interface AiGatewayWebUiOptions {
  /** The built single-page app (dist/apps/ai-gateway/web); without it only /api/v1/ui/config is served. */
  webRoot?: string;
  /** The suite's sign-in, present when the gateway knows the control plane (AIGW_OIDC_ISSUER_URL, AIGW_CONTROL_PLANE_URL, …). */
  signIn?: { issuer: string; clientId: string; controlPlaneUrl: string };
}

/** What the UI starts from, the shape @arbor/ui-shell reads (ProductUiConfig). */
export interface AiGatewayUiConfig {
  issuer: string;
  client_id: string;
  control_plane_url: string;
}

export const WEB_UI_OPTIONS = Symbol('AI_GATEWAY_WEB_UI_OPTIONS');

@ApiTags('ui')
@Controller('api/v1/ui')
export class AiGatewayUiConfigController {
  constructor(@Inject(WEB_UI_OPTIONS) private readonly options: AiGatewayWebUiOptions) {}

  /** Public, no token: the issuer and client the UI signs in with, and where the control plane is. */
  @Get('config')
  @Header('cache-control', 'no-cache')
  @ApiOperation({ summary: "What the gateway's web UI needs before sign-in: the OIDC issuer and client, and the control plane's address (public, no token)" })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['issuer', 'client_id', 'control_plane_url'],
      properties: { issuer: { type: 'string' }, client_id: { type: 'string' }, control_plane_url: { type: 'string' } },
    },
  })
  @ApiNotFoundResponse({ description: 'ui_not_configured: the gateway knows no control plane to sign people in through' })
  uiConfig(): AiGatewayUiConfig {
    const signIn = this.options.signIn;
    if (!signIn) {
      throw new ApiError(
        404,
        'ui_not_configured',
        "The AI gateway's UI signs people in through the control plane: set AIGW_OIDC_ISSUER_URL, AIGW_CONTROL_PLANE_URL, AIGW_M2M_CLIENT_ID and AIGW_M2M_CLIENT_SECRET.",
      );
    }
    return { issuer: signIn.issuer, client_id: signIn.clientId, control_plane_url: signIn.controlPlaneUrl };
  }
}
