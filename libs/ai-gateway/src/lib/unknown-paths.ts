import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ProviderError } from '@arbor/provider-adapters';
import { excerpt } from '@arbor/platform';
import { clientCodec } from './endpoints/client-codec';
import { sendError } from './endpoints/endpoint-codec';
import { PLATFORM_PATHS } from './client-envelope-error.filter';
import { GatewayAuthentication } from './gateway-key.guard';

export const unknownPath = (method: string, path: string) =>
  new ProviderError(404, 'invalid_request_error', `Invalid URL (${excerpt(method)} ${excerpt(path)}): this gateway serves no such endpoint.`, 'unknown_path');

/**
 * A model-API path or method the gateway does not serve, answered as the vendors answer it: the
 * caller's key checked first (no key or a bad one is a 401, so that the gateway's endpoints are
 * not probed without one), then a 404 in the envelope of the client's family. The admin API,
 * health and metrics keep the platform's own not-found answer.
 */
@Injectable()
export class UnknownPaths implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly authentication: GatewayAuthentication,
  ) {}

  // Nest calls this after registering every controller's routes and before its own not-found
  // handler, so the catch-all comes after every route of every module (direct routes, WebSocket
  // upgrades and the routes of controllers never reach Express's fallthrough).
  onModuleInit(): void {
    this.adapterHost.httpAdapter.use((request: IncomingMessage & { path?: string }, response: ServerResponse, next: () => void) => {
      const path = request.path ?? new URL(request.url ?? '/', 'http://gateway').pathname;
      if (PLATFORM_PATHS.test(path)) return next();
      void this.refuse(request, response, path);
    });
  }

  private async refuse(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const codec = clientCodec(request.headers);
    // The body of a request nobody serves is not read: it is drained so the connection stays usable.
    request.resume();
    try {
      await this.authentication.caller(request);
      sendError(codec, response, unknownPath(request.method ?? 'GET', path));
    } catch (error) {
      sendError(codec, response, error);
    }
  }
}
