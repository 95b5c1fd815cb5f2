import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { messagesToChatRequest, nativeOperation, readAll } from '@arbor/provider-adapters';
import { DirectRoutes } from '@arbor/platform';
import { noDeploymentsAvailable } from '../../call-router';
import { applyDropParams } from '../../calls/drop-params';
import { readJsonObject } from '../../calls/request-body';
import { requestedAlias } from '../../calls/requested-alias';
import { DeploymentRouter } from '../../deployment-router';
import { GatewayAuthentication } from '../../gateway-key.guard';
import { promptTokensOf } from '../../spend/usage-estimate';
import { sendError } from '../endpoint-codec';
import { ANTHROPIC_MESSAGES } from './anthropic-messages.codec';

const PATH = '/v1/messages/count_tokens';
// Token counts are a few bytes; a provider answering more is refused rather than held.
const MAX_ANSWER_BYTES = 1_048_576;

/**
 * POST /v1/messages/count_tokens: the tokens a Messages request would take as input, free of
 * charge as at Anthropic (no spend, no limits). An alias served by Anthropic forwards only
 * `model`, `messages`, `tools` and `system`; any other is counted here with gpt-tokenizer's
 * o200k_base encoding over the request as chat, which is an estimate (exact only for the text of
 * current OpenAI models): the answer says so in `x-arbor-token-count`.
 */
@Injectable()
export class CountTokensRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly deployments: DeploymentRouter,
  ) {}

  onModuleInit(): void {
    this.routes.add({ route: PATH, matches: (method, path) => method === 'POST' && path === PATH, handle: (request, response) => this.count(request, response) });
  }

  private async count(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const caller = await this.authentication.caller(request);
      const body = await readJsonObject(request);
      const alias = requestedAlias(body, caller, this.deployments);
      const deployment = this.deployments.pick(alias);
      if (!deployment) throw noDeploymentsAvailable(alias, this.deployments.soonestAvailableMs(alias));
      const headers = { 'content-type': 'application/json', 'x-arbor-model-group': alias, 'x-arbor-model-id': deployment.id };
      const native = nativeOperation(deployment.provider, 'count_tokens');
      if (native) {
        const abort = new AbortController();
        response.once('close', () => abort.abort(new Error('client disconnected')));
        const answer = await native.call({
          deployment,
          body: applyDropParams(body, native.params, deployment.provider, true, true),
          headers: ANTHROPIC_MESSAGES.forwardedHeaders(request.headers) ?? {},
          signal: abort.signal,
        });
        const bytes = await readAll(answer.body, MAX_ANSWER_BYTES);
        response.writeHead(answer.status, { ...headers, 'x-arbor-token-count': 'provider', 'content-length': bytes.length }).end(bytes);
        return;
      }
      // Counted as the bridge would send it; max_tokens does not count, and count_tokens requests carry none.
      const inputTokens = await promptTokensOf(messagesToChatRequest({ ...body, max_tokens: 1 }));
      const answer = JSON.stringify({ input_tokens: inputTokens });
      response.writeHead(200, { ...headers, 'x-arbor-token-count': 'estimate; encoding=o200k_base', 'content-length': Buffer.byteLength(answer) }).end(answer);
    } catch (error) {
      sendError(ANTHROPIC_MESSAGES, response, error);
    }
  }
}
