import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { messagesToChatRequest, nativeOperation, readAll, responsesToChatRequest, type ProviderOperation } from '@arbor/provider-adapters';
import { DirectRoutes } from '@arbor/platform';
import { noDeploymentsAvailable } from '../call-router';
import { applyDropParams } from '../calls/drop-params';
import { readJsonObject } from '../calls/request-body';
import { requestedAlias } from '../calls/requested-alias';
import type { GatewayDeployment } from '../config/gateway-config';
import { DeploymentRouter } from '../deployment-router';
import { GatewayAuthentication } from '../gateway-key.guard';
import { promptTokensOf } from '../spend/usage-estimate';
import { ANTHROPIC_MESSAGES } from './anthropic-messages/anthropic-messages.codec';
import { sendError, type EndpointCodec } from './endpoint-codec';
import { OPENAI_RESPONSES } from './openai-responses/openai-responses.codec';

// Token counts are a few bytes; a provider answering more is refused rather than held.
const MAX_ANSWER_BYTES = 1_048_576;

/** One family's token count: its path, the provider operation that counts natively, the local fallback. */
interface TokenCount {
  path: string;
  codec: EndpointCodec;
  operation: ProviderOperation;
  /** The request as the chat bridge would send it, for counting locally. */
  asChat(body: Record<string, unknown>, deployment: GatewayDeployment): Record<string, unknown>;
  /** The family's answer for `tokens`. */
  answer(tokens: number): Record<string, unknown>;
}

const TOKEN_COUNTS: readonly TokenCount[] = [
  {
    path: '/v1/messages/count_tokens',
    codec: ANTHROPIC_MESSAGES,
    operation: 'count_tokens',
    // max_tokens does not count, and count_tokens requests carry none.
    asChat: (body) => messagesToChatRequest({ ...body, max_tokens: 1 }),
    answer: (tokens) => ({ input_tokens: tokens }),
  },
  {
    path: '/v1/responses/input_tokens',
    codec: OPENAI_RESPONSES,
    operation: 'responses_input_tokens',
    asChat: (body, deployment) => responsesToChatRequest(body, { provider: deployment.provider, dropParams: true }),
    answer: (tokens) => ({ object: 'response.input_tokens', input_tokens: tokens }),
  },
];

/**
 * The token counts of the families that have one, free of charge as at the vendors (no spend,
 * no limits): POST /v1/messages/count_tokens (Anthropic) and POST /v1/responses/input_tokens
 * (OpenAI). A deployment that counts natively is asked, with only the fields its count takes;
 * any other is counted here with gpt-tokenizer's o200k_base encoding over the request as chat,
 * which is an estimate (exact only for the text of current OpenAI models): the answer says so in
 * `x-arbor-token-count`.
 */
@Injectable()
export class TokenCountRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly deployments: DeploymentRouter,
  ) {}

  onModuleInit(): void {
    for (const count of TOKEN_COUNTS) {
      this.routes.add({
        route: count.path,
        endpoints: [{ methods: ['POST'], path: count.path }],
        matches: (method, path) => method === 'POST' && path === count.path,
        handle: (request, response) => this.count(count, request, response),
      });
    }
  }

  private async count(count: TokenCount, request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const caller = await this.authentication.caller(request);
      const body = await readJsonObject(request);
      const alias = requestedAlias(body, caller, this.deployments);
      const deployment = this.deployments.pick(alias);
      if (!deployment) throw noDeploymentsAvailable(alias, this.deployments.soonestAvailableMs(alias));
      const headers = { 'content-type': 'application/json', 'x-arbor-model-group': alias, 'x-arbor-model-id': deployment.id };
      const native = nativeOperation(deployment.provider, count.operation);
      if (native && (deployment.supportedEndpoints === undefined || deployment.supportedEndpoints.has(count.path))) {
        const abort = new AbortController();
        response.once('close', () => abort.abort(new Error('client disconnected')));
        const answer = await native.call({
          deployment,
          body: applyDropParams(body, native.params, deployment.provider, true, 'dropped'),
          headers: count.codec.forwardedHeaders(request.headers) ?? {},
          signal: abort.signal,
        });
        const bytes = await readAll(answer.body, MAX_ANSWER_BYTES);
        response.writeHead(answer.status, { ...headers, 'x-arbor-token-count': 'provider', 'content-length': bytes.length }).end(bytes);
        return;
      }
      const answer = JSON.stringify(count.answer(await promptTokensOf(count.asChat(body, deployment))));
      response.writeHead(200, { ...headers, 'x-arbor-token-count': 'estimate; encoding=o200k_base', 'content-length': Buffer.byteLength(answer) }).end(answer);
    } catch (error) {
      sendError(count.codec, response, error);
    }
  }
}
