import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller';
import { OpenApiDocument } from './openapi-document';

/** Serves the OpenAPI description of the whole app at GET /api/v1/openapi.json (public). */
@Module({
  controllers: [OpenApiController],
  providers: [OpenApiDocument],
  exports: [OpenApiDocument],
})
export class OpenApiModule {}
