import { Controller, Get, Header, Inject, Param, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiError } from '../errors/api-error';
import { excerpt } from '../input/input-rules';
import { contentSecurityPolicy } from '../security/content-security-policy';
import { apiReferenceAssets, apiReferencePage } from './api-reference';
import { OPENAPI_INFO, type OpenApiInfo } from './openapi-document';

const POLICY = contentSecurityPolicy();

/** The API reference page of a service (GET /api/v1/docs, public) and the files it loads, under the suite's CSP. */
@ApiTags('meta')
@Controller('api/v1/docs')
export class ApiReferenceController {
  private readonly page: string;
  private readonly assets = apiReferenceAssets();

  constructor(@Inject(OPENAPI_INFO) info: OpenApiInfo) {
    this.page = apiReferencePage(info.title);
  }

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', POLICY)
  @Header('x-content-type-options', 'nosniff')
  @Header('referrer-policy', 'no-referrer')
  @Header('cache-control', 'no-cache')
  @ApiOperation({ summary: 'This API reference: the OpenAPI document rendered for people (public, no token)' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'An HTML page that renders /api/v1/openapi.json with Swagger UI.' })
  reference(): string {
    return this.page;
  }

  @Get('assets/:file')
  @ApiOperation({ summary: "A file the API reference page loads (Swagger UI's, or the page's own)" })
  @ApiParam({ name: 'file', example: 'swagger-ui.css' })
  @ApiOkResponse({ description: 'The file (CSS or JavaScript).' })
  @ApiNotFoundResponse({ description: 'No such file.' })
  asset(@Param('file') file: string, @Res() response: Response): void {
    const asset = this.assets.get(file);
    if (!asset) throw new ApiError(404, 'not_found', `The API reference has no file ${excerpt(file)}.`);
    response.setHeader('content-type', asset.contentType);
    response.setHeader('content-security-policy', POLICY);
    response.setHeader('x-content-type-options', 'nosniff');
    // Swagger UI's files change only with the installed version: revalidated by ETag, not re-sent.
    response.setHeader('cache-control', 'no-cache');
    if ('text' in asset.source) {
      response.send(asset.source.text);
      return;
    }
    response.sendFile(asset.source.file, { headers: { 'content-type': asset.contentType }, cacheControl: false });
  }
}
