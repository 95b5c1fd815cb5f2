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
    const document = uniqueOperationIds(
      describeErrors(describeAnyMethodOnce(SwaggerModule.createDocument(this.application(), this.info(), { extraModels: [ErrorBody], autoTagControllers: true }))),
    );
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

// The methods @nestjs/swagger describes a route of any method (`@All`) under (and `search`, `query`), each with the operationId `<handler>_<method>`.
const ANY_METHOD = ['get', 'post', 'put', 'delete', 'patch', 'options', 'head'];
// Where such a route is described instead: OpenAPI has no "any method" (nor `search`, `query` before 3.2).
const ANY_METHOD_SHOWN_AS = 'post';

/**
 * A route of any method (`@All`, such as the AI gateway's not-served fine-tuning paths) described
 * once, under POST, saying it takes any method, instead of the same operation under every method
 * (`SEARCH /v1/fine_tuning`, a method OpenAPI 3.0 does not even have).
 */
function describeAnyMethodOnce(document: OpenAPIObject): OpenAPIObject {
  for (const pathItem of Object.values(document.paths) as Record<string, { operationId?: string; description?: string }>[]) {
    const shown = pathItem[ANY_METHOD_SHOWN_AS];
    const handler = shown?.operationId?.replace(new RegExp(`_${ANY_METHOD_SHOWN_AS}$`), '');
    if (!shown || handler === undefined || handler === shown.operationId) continue;
    if (!ANY_METHOD.every((method) => pathItem[method]?.operationId === `${handler}_${method}`)) continue;
    for (const method of Object.keys(pathItem)) if (method !== ANY_METHOD_SHOWN_AS && pathItem[method]?.operationId === `${handler}_${method}`) delete pathItem[method];
    shown.operationId = handler;
    shown.description = [shown.description, 'Any HTTP method: the route answers every method alike.'].filter(Boolean).join('\n\n');
  }
  return document;
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

/**
 * Every operationId once in the document, as OpenAPI requires and client generators rely on: a
 * handler serving several paths (`@All(['v1/fine_tuning', 'v1/fine_tuning/*path'])`) otherwise
 * names them all alike. The first keeps its id, the later ones, in document order, get `_2`, `_3`…
 * (skipping any id already taken), so the ids stay the same from one build to the next.
 */
export function uniqueOperationIds<D extends Pick<OpenAPIObject, 'paths'>>(document: D): D {
  const operations = Object.values(document.paths).flatMap((pathItem) =>
    Object.values(pathItem as Record<string, { operationId?: unknown }>).filter((operation): operation is { operationId: string } => typeof operation?.operationId === 'string'),
  );
  const taken = new Set(operations.map((operation) => operation.operationId));
  const seen = new Set<string>();
  for (const operation of operations) {
    const id = operation.operationId;
    if (!seen.has(id)) {
      seen.add(id);
      continue;
    }
    let n = 2;
    while (taken.has(`${id}_${n}`)) n++;
    operation.operationId = `${id}_${n}`;
    taken.add(operation.operationId);
  }
  return document;
}
