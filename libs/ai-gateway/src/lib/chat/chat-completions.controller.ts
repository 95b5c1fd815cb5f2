import { Controller, Get, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { providerAdapterFor, UpstreamAnswer } from '@arbor/provider-adapters';
import { DeploymentRouter } from '../deployment-router';
import { FamilyAErrorFilter } from '../family-a-error.filter';
import { badRequest, storedCompletionsNotServed, unknownModel } from '../gateway-errors';
import { MasterKeyGuard } from '../master-key.guard';

// Connection-level headers describe the upstream hop, not the answer; they are not repeated.
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date', 'server']);

@Controller()
@UseGuards(MasterKeyGuard)
@UseFilters(FamilyAErrorFilter)
export class ChatCompletionsController {
  constructor(private readonly router: DeploymentRouter) {}

  @Post(['v1/chat/completions', 'chat/completions'])
  async create(@Req() request: Request, @Res() response: Response): Promise<void> {
    const started = performance.now();
    const body: unknown = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
    const call = body as Record<string, unknown>;
    const alias = call['model'];
    if (typeof alias !== 'string' || alias === '') throw badRequest('model is required.', 'model');
    const deployment = this.router.pick(alias);
    if (!deployment) throw unknownModel(alias);
    const adapter = providerAdapterFor(deployment.provider);
    if (!adapter) throw unknownModel(alias); // configuration checks make this unreachable

    response.setHeader('x-arbor-call-id', randomUUID());
    response.setHeader('x-arbor-model-group', alias);
    response.setHeader('x-arbor-model-id', deployment.id);
    response.setHeader('x-arbor-attempted-retries', '0');

    // No paying for answers nobody reads: the client hanging up aborts the upstream call.
    const abort = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) abort.abort(new Error('client disconnected'));
    });

    let answer: UpstreamAnswer;
    try {
      answer = await adapter.chatCompletions({ deployment, body: call, signal: abort.signal });
    } catch (error) {
      if (abort.signal.aborted) return;
      response.setHeader('x-arbor-response-duration-ms', elapsedMs(started));
      throw error;
    }
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

function elapsedMs(started: number): string {
  return (performance.now() - started).toFixed(1);
}
