import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, providerAdapterFor, readAll, sendUpstream } from '@arbor/provider-adapters';
import { noDeploymentsAvailable } from '../call-router';
import { readJsonObject } from '../calls/request-body';
import { requestedAlias } from '../calls/requested-alias';
import { sendError } from '../endpoints/endpoint-codec';
import { OPENAI_CHAT } from '../endpoints/openai/openai-codecs';
import { DeploymentRouter } from '../deployment-router';
import { badRequest } from '../gateway-errors';
import { GatewayAuthentication } from '../gateway-key.guard';

// The session (and its ephemeral client secret) is a small JSON document.
const MAX_ANSWER_BYTES = 1_048_576;

/**
 * Where the model of a session request is: `model` (the beta `/realtime/sessions`), or
 * `session.model` (the GA `/realtime/client_secrets`), with where to put the provider's model back.
 */
const SESSION_ROUTES: readonly { path: string; model: (body: Record<string, unknown>) => { value: unknown; set(model: string): Record<string, unknown> } }[] = [
  { path: '/v1/realtime/sessions', model: (body) => ({ value: body['model'], set: (model) => ({ ...body, model }) }) },
  {
    path: '/v1/realtime/client_secrets',
    model: (body) => {
      const session = (typeof body['session'] === 'object' && body['session'] !== null ? body['session'] : {}) as Record<string, unknown>;
      return { value: session['model'], set: (model) => ({ ...body, session: { ...session, model } }) };
    },
  },
];

/**
 * WebRTC session creation (`POST /v1/realtime/sessions`, `POST /v1/realtime/client_secrets`) for
 * aliases of a provider that offers realtime and a pass-through of its API (OpenAI): the alias
 * checked as for any call, the provider's model and key put in, the answer (the session with its
 * short-lived client secret, for the browser to connect to the provider itself) passed back as
 * the provider sent it. The media then flows between the browser and the provider: those
 * sessions' tokens are not seen, so not priced, by the gateway.
 */
@Injectable()
export class RealtimeSessionsRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly deployments: DeploymentRouter,
  ) {}

  onModuleInit(): void {
    for (const route of SESSION_ROUTES) {
      const paths = [route.path, route.path.slice('/v1'.length)];
      this.routes.add({
        route: route.path,
        endpoints: paths.map((path) => ({ methods: ['POST'], path })),
        matches: (method, path) => method === 'POST' && paths.includes(path),
        handle: (request, response) => this.create(route, request, response),
      });
    }
  }

  private async create(route: (typeof SESSION_ROUTES)[number], request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const caller = await this.authentication.caller(request);
      const body = await readJsonObject(request);
      const model = route.model(body);
      const alias = requestedAlias({ model: model.value }, caller, this.deployments);
      const deployment = this.deployments.pick(alias);
      if (!deployment) throw noDeploymentsAvailable(alias, this.deployments.soonestAvailableMs(alias));
      const adapter = providerAdapterFor(deployment.provider);
      if (!adapter?.realtime || !adapter.passThrough)
        throw badRequest(`The model "${alias}" is served by ${deployment.provider}, which offers no WebRTC realtime sessions through this gateway.`, 'model');
      const target = adapter.passThrough.target(deployment, route.path, '');
      const abort = new AbortController();
      response.once('close', () => abort.abort(new Error('client disconnected')));
      const answer = await sendUpstream({
        url: target.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...target.headers },
        body: Buffer.from(JSON.stringify(model.set(deployment.model))),
        signal: abort.signal,
        timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
      });
      const bytes = await readAll(answer.body, MAX_ANSWER_BYTES);
      response
        .writeHead(answer.statusCode, {
          'content-type': String(answer.headers['content-type'] ?? 'application/json'),
          'content-length': bytes.length,
          'x-arbor-model-group': alias,
          'x-arbor-model-id': deployment.id,
        })
        .end(bytes);
    } catch (error) {
      sendError(OPENAI_CHAT, response, error);
    }
  }
}
