import { Controller, Get, Inject, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { providerAdapterFor, supportedChatCompletionParams, UpstreamAnswer } from '@arbor/provider-adapters';
import { CallProgress, CallRouter } from '../call-router';
import { DeploymentRouter } from '../deployment-router';
import { FamilyAErrorFilter } from '../family-a-error.filter';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { applyDropParams, checkGatewayParams } from './drop-params';
import { badRequest, keyModelAccessDenied, storedCompletionsNotServed, unknownModel } from '../gateway-errors';
import { gatewayCaller, GatewayKeyGuard } from '../gateway-key.guard';
import { mayUseAlias } from '../keys/key-verifier';

// Connection-level headers describe the upstream hop, not the answer; they are not repeated.
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date', 'server']);

@Controller()
@UseGuards(GatewayKeyGuard)
@UseFilters(FamilyAErrorFilter)
export class ChatCompletionsController {
  constructor(
    private readonly router: DeploymentRouter,
    private readonly calls: CallRouter,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  @Post(['v1/chat/completions', 'chat/completions'])
  async create(@Req() request: Request, @Res() response: Response): Promise<void> {
    const started = performance.now();
    const body: unknown = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
    const call = body as Record<string, unknown>;
    const alias = call['model'];
    if (typeof alias !== 'string' || alias === '') throw badRequest('model is required.', 'model');
    // Before the existence check, so that a restricted key learns nothing of other aliases.
    if (!mayUseAlias(gatewayCaller(request), alias)) throw keyModelAccessDenied(alias);
    if (!this.router.has(alias)) throw unknownModel(alias);
    checkGatewayParams(call);

    response.setHeader('x-arbor-call-id', randomUUID());

    // No paying for answers nobody reads: the client hanging up aborts the upstream call.
    const abort = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) abort.abort(new Error('client disconnected'));
    });

    // Retries and fallbacks happen here, before the first byte goes to the client.
    const progress: CallProgress = { alias, retries: 0, fallbacks: 0 };
    let answer: UpstreamAnswer;
    try {
      answer = await this.calls.route(
        progress,
        (deployment) => {
          const adapter = providerAdapterFor(deployment.provider);
          const supported = supportedChatCompletionParams(deployment.provider);
          if (!adapter || !supported) throw unknownModel(alias); // configuration checks make this unreachable
          const body = applyDropParams(call, supported, deployment.provider, this.settings.dropParams);
          return adapter.chatCompletions({ deployment, body, signal: abort.signal });
        },
        abort.signal,
      );
    } catch (error) {
      if (abort.signal.aborted) return;
      setRoutingHeaders(response, progress);
      response.setHeader('x-arbor-response-duration-ms', elapsedMs(started));
      throw error;
    }
    setRoutingHeaders(response, progress);
    setUpstreamHeaders(response, answer.headers);
    response.setHeader('content-type', answer.headers['content-type'] ?? 'application/json');
    if (call['stream'] === true) {
      response.setHeader('cache-control', 'no-cache');
      response.setHeader('x-accel-buffering', 'no');
    }
    response.setHeader('x-arbor-response-duration-ms', elapsedMs(started));
    response.status(answer.status);
    response.flushHeaders();
    // Chunk by chunk, as they arrive; a broken side tears down the other.
    await pipeline(answer.body, response).catch(() => undefined);
  }

  @Get(['v1/chat/completions/:id', 'chat/completions/:id'])
  stored(): never {
    throw storedCompletionsNotServed();
  }
}

function setUpstreamHeaders(response: Response, headers: IncomingHttpHeaders): void {
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    response.setHeader(`llm_provider-${name}`, value);
  }
}

function setRoutingHeaders(response: Response, progress: CallProgress): void {
  response.setHeader('x-arbor-model-group', progress.alias);
  if (progress.deployment) response.setHeader('x-arbor-model-id', progress.deployment.id);
  response.setHeader('x-arbor-attempted-retries', String(progress.retries));
  response.setHeader('x-arbor-attempted-fallbacks', String(progress.fallbacks));
}

function elapsedMs(started: number): string {
  return (performance.now() - started).toFixed(1);
}
