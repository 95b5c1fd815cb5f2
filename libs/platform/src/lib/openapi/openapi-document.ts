import { Inject, INestApplication, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorBody } from './error-body.schema';

export const OPENAPI_PATH = '/api/v1/openapi.json';

type Operation = { responses?: Record<string, { content?: unknown }> };

/** What the document says of the service as a whole. */
export interface OpenApiInfo {
  title: string;
  /** Markdown; the error envelope and how to authenticate are worth saying here. */
  description: string;
}

export const OPENAPI_INFO = Symbol('arbor.openapi-info');

/**
 * The OpenAPI description of every route, built once when the application has started (every
 * controller is known by then) and kept serialised: serving it costs nothing per request.
 */
@Injectable()
export class OpenApiDocument implements OnApplicationBootstrap {
  private built?: { document: OpenAPIObject; json: string };

  constructor(
    private readonly modules: ModulesContainer,
    private readonly applicationConfig: ApplicationConfig,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(OPENAPI_INFO) private readonly description: OpenApiInfo,
  ) {}

  onApplicationBootstrap(): void {
    const document = describeErrors(SwaggerModule.createDocument(this.application(), this.info(), { extraModels: [ErrorBody], autoTagControllers: true }));
    this.built = { document, json: JSON.stringify(document) };
  }

  get document(): OpenAPIObject {
    return this.ready().document;
  }

  get json(): string {
    return this.ready().json;
  }

  private ready(): { document: OpenAPIObject; json: string } {
    if (!this.built) throw new Error('the OpenAPI document is built when the application bootstraps');
    return this.built;
  }

  private info(): Omit<OpenAPIObject, 'paths'> {
    return (
      new DocumentBuilder()
        .setTitle(this.description.title)
        .setDescription(this.description.description)
        // The version of the API the paths carry (/api/v1), not the monorepo's package version.
        .setVersion('1')
        .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
        .build()
    );
  }

  /**
   * SwaggerModule reads only the module container, the application config and the HTTP adapter
   * of the application it is given; a module cannot inject the application itself, so it gets those three.
   */
  private application(): INestApplication {
    const container = { getModules: () => this.modules, isGlobalModule: () => false };
    const httpAdapter = this.adapterHost.httpAdapter;
    return { container, config: this.applicationConfig, getHttpAdapter: () => httpAdapter } as unknown as INestApplication;
  }
}

/** Every documented error answer has the one error body. */
function describeErrors(document: OpenAPIObject): OpenAPIObject {
  const errorContent = { 'application/json': { schema: { $ref: `#/components/schemas/${ErrorBody.name}` } } };
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Operation[]) {
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        if (Number(status) >= 400 && !response.content) response.content = errorContent;
      }
    }
  }
  return document;
}
