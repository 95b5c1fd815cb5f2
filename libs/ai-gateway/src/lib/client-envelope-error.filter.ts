import type { IncomingMessage, ServerResponse } from 'node:http';
import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request } from 'express';
import type { ErrorRenderer } from '@arbor/platform';
import { clientCodec } from './endpoints/client-codec';
import { sendError } from './endpoints/endpoint-codec';

/**
 * Every error of the gateway's Nest routes (models) in the envelope of the family whose client
 * calls: OpenAI-format's {"error":{message,type,param,code}}, or, for Anthropic's clients (they send
 * anthropic-version), the envelope of both families, so that the official SDKs raise their
 * matching error classes. Scoped to the gateway's controllers; the platform's own routes keep
 * the platform envelope.
 */
@Catch()
export class ClientEnvelopeErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(clientCodec(http.getRequest<IncomingMessage>().headers), http.getResponse<ServerResponse>(), exception);
  }
}

// The platform's own routes and the admin API (LiteLLM's key, customer, team and tag APIs too) keep the platform envelope.
export const PLATFORM_PATHS = /^\/(api\/|key\/|customer\/|team\/|user\/|tag\/|spend\/(logs|tags)$|healthz$|readyz$|metrics$)/;

/**
 * For the platform's error filter: errors raised before a gateway controller runs (a malformed
 * JSON body, a body over the size limit, an unknown route) answered on the model paths in the
 * envelope of the client's family (Anthropic's clients send anthropic-version), so that SDKs
 * read them as they read their vendor's.
 */
export const renderClientEnvelopeErrors: ErrorRenderer = (exception: unknown, request: Request) => {
  if (PLATFORM_PATHS.test(request.path)) return undefined;
  return clientCodec(request.headers).renderError(exception);
};
