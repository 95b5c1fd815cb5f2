import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ControlPlaneConfig } from '@arbor/config';
import { UiConfigResponse } from './dto/ui-config.response';

@ApiTags('shell')
@Controller('api/v1/ui')
export class UiConfigController {
  constructor(private readonly config: ControlPlaneConfig) {}

  @Get('config')
  @Header('cache-control', 'no-cache')
  @ApiOperation({ summary: 'What the web UI needs before sign-in: the OIDC issuer and client, and the suite modules (public, no token)' })
  @ApiOkResponse({ type: UiConfigResponse })
  uiConfig(): UiConfigResponse {
    return UiConfigResponse.of(this.config);
  }
}
