import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { OpenApiDocument } from './openapi-document';

@ApiTags('meta')
@Controller('api/v1')
export class OpenApiController {
  constructor(private readonly openApi: OpenApiDocument) {}

  @Get('openapi.json')
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiOperation({ summary: 'This OpenAPI document (public, no token)' })
  @ApiOkResponse({ description: 'The OpenAPI 3 description of every route of the control plane.' })
  document(): string {
    return this.openApi.json;
  }
}
