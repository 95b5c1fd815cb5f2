import { DynamicModule, Module } from '@nestjs/common';
import { ApiReferenceController } from './api-reference.controller';
import { OpenApiController } from './openapi.controller';
import { OPENAPI_INFO, OpenApiDocument, OpenApiInfo } from './openapi-document';

/**
 * Serves the OpenAPI description of every framework route of a service at
 * GET /api/v1/openapi.json (public): what clients generate code from and what the hostile-input
 * fuzz suite walks; and its API reference page at GET /api/v1/docs, for people.
 */
@Module({})
export class OpenApiModule {
  static forService(info: OpenApiInfo): DynamicModule {
    return {
      module: OpenApiModule,
      controllers: [OpenApiController, ApiReferenceController],
      providers: [{ provide: OPENAPI_INFO, useValue: info }, OpenApiDocument],
      exports: [OpenApiDocument],
    };
  }
}
