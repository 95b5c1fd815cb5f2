import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { sendError, type EndpointCodec } from '../endpoints/endpoint-codec';
import { ENDPOINT_CODECS } from '../endpoints/endpoint-codecs';
import { GatewayAuthentication } from '../gateway-key.guard';
import { DEFAULT_MAX_UPLOAD_BYTES, GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { GatewayCaller } from '../keys/key-verifier';
import { CallPipeline } from './call-pipeline';
import { readMultipart } from './multipart-body';
import { readJsonObject } from './request-body';
import { ObjectReferences } from '../resources/object-references';

/**
 * A family that answers its calls around the pipeline rather than by it alone (the Responses
 * API's stored conversations and background runs).
 */
export interface CallExtension {
  readonly codecs: readonly EndpointCodec[];
  /** Answers a call whose key was checked and body read (errors are thrown, the route renders them). */
  handle(codec: EndpointCodec, caller: GatewayCaller, body: Record<string, unknown>, request: IncomingMessage, response: ServerResponse): Promise<void>;
}

export const CALL_EXTENSIONS = Symbol('CALL_EXTENSIONS');

/**
 * The model calls of every endpoint family, served as direct routes (below Express and Nest):
 * what the gateway adds to a call is the product's figure of merit, and the framework's router,
 * body parser, guard and filter chain cost more than the call pipeline itself. The key is checked
 * and the body read here, and every error is answered by the family's codec in its own envelope.
 */
@Injectable()
export class CallRoutes {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly pipeline: CallPipeline,
    @Inject(CALL_EXTENSIONS) private readonly extensions: readonly CallExtension[],
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly references: ObjectReferences,
  ) {
    // Registered when constructed, before any route that registers on module init: DirectRoutes
    // matches in the order routes were added, and the model calls are the hot path.
    for (const codec of ENDPOINT_CODECS) {
      const [route] = codec.paths;
      this.routes.add({
        route: route as string,
        endpoints: codec.paths.map((path) => ({ methods: ['POST'], path })),
        matches: (method, requested) => method === 'POST' && codec.paths.includes(requested),
        handle: (request, response) => this.call(codec, request, response),
      });
    }
  }

  private async call(codec: EndpointCodec, request: IncomingMessage, response: ServerResponse): Promise<void> {
    let discard: (() => Promise<void>) | undefined;
    try {
      const caller = await this.authentication.caller(request);
      let body: Record<string, unknown>;
      if (codec.requestFormat === 'multipart') {
        const upload = await readMultipart(request, this.settings.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES);
        ({ body, discard } = upload);
      } else body = await readJsonObject(request);
      // A conversation, file or vector store named by the upstream's id must be the caller's project's.
      await this.references.checkModelCall(caller, body);
      const extension = this.extensions.find((candidate) => candidate.codecs.includes(codec));
      if (extension) await extension.handle(codec, caller, body, request, response);
      else await this.pipeline.handle(codec, caller, body, request.headers, response);
    } catch (error) {
      sendError(codec, response, error);
    } finally {
      // Spooled uploads last as long as the call: every attempt has sent them by now.
      await discard?.();
    }
  }
}
