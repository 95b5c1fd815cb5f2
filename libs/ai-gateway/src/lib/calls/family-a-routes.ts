import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { ProviderOperation } from '@arbor/provider-adapters';
import { DirectRoutes } from '@arbor/platform';
import { sendFamilyAError } from '../family-a-error.filter';
import { GatewayAuthentication } from '../gateway-key.guard';
import { FamilyACalls } from './family-a-calls';
import { readJsonObject } from './request-body';

/** OpenAI's call routes, with and without `/v1`, as the official SDKs and LiteLLM clients call them. */
const CALL_ROUTES: { operation: ProviderOperation; path: string }[] = [
  { operation: 'chat', path: '/chat/completions' },
  { operation: 'completions', path: '/completions' },
  { operation: 'embeddings', path: '/embeddings' },
];

/**
 * The model calls, served as direct routes (below Express and Nest): what the gateway adds to a
 * call is the product's figure of merit, and the framework's router, body parser, guard and
 * filter chain cost more than the call pipeline itself. The key is checked, the body read and
 * every error answered in the family A envelope here, as the guard and filter do for the other
 * family A routes.
 */
@Injectable()
export class FamilyARoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly calls: FamilyACalls,
  ) {}

  onModuleInit(): void {
    for (const { operation, path } of CALL_ROUTES) {
      const versioned = `/v1${path}`;
      this.routes.add({
        route: versioned,
        matches: (method, requested) => method === 'POST' && (requested === versioned || requested === path),
        handle: (request, response) => this.call(operation, request, response),
      });
    }
  }

  private async call(operation: ProviderOperation, request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const caller = await this.authentication.caller(request);
      const body = await readJsonObject(request);
      await this.calls.handle(operation, caller, body, response);
    } catch (error) {
      sendFamilyAError(response, error);
    }
  }
}
