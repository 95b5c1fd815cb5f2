import { DynamicModule, Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller';
import { OPENAPI_INFO, OpenApiDocument, OpenApiInfo } from './openapi-document';

/**
 * Serves the OpenAPI description of every framework route of a service at
 * GET /api/v1/openapi.json (public): what clients generate code from and what the hostile-input
 * fuzz suite walks.
 */
@Module({})
export class OpenApiModule {
  static forService(info: OpenApiInfo): DynamicModule {
    return {
      module: OpenApiModule,
      controllers: [OpenApiController],
      providers: [{ provide: OPENAPI_INFO, useValue: info }, OpenApiDocument],
      exports: [OpenApiDocument],
    };
  }
}
