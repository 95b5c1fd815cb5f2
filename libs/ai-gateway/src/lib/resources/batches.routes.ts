import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { CallAccounting } from '../calls/call-accounting';
import { readJsonObject } from '../calls/request-body';
import { NO_USAGE } from '../calls/usage';
import { sendError } from '../endpoints/endpoint-codec';
import { OPENAI_CHAT } from '../endpoints/openai/openai-codecs';
import { badRequest, keyModelAccessDenied } from '../gateway-errors';
import { GatewayAuthentication } from '../gateway-key.guard';
import { type GatewayCaller, mayUseAlias } from '../keys/key-verifier';
import { BatchLedger } from './batch-ledger';
import { notServed } from './files.routes';
import { checkedId } from '../stored-responses/responses-store';
import { gatewayId, ResourceStore } from './resource-store';
import { pathId, queryOf, sendJson } from './resource-replies';
import { ResourceUpstream } from './resource-upstream';

const PATH = /^\/v1\/batches(?:\/([^/]+)(\/cancel)?)?$/;

/**
 * OpenAI's Batch API with ids of the gateway's own: a batch runs on the deployment that holds its
 * input file, is owned by the key's project, and its cost is recorded once it ends (BatchLedger).
 */
@Injectable()
export class BatchesRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly store: ResourceStore,
    private readonly upstream: ResourceUpstream,
    private readonly ledger: BatchLedger,
    private readonly accounting: CallAccounting,
  ) {}

  onModuleInit(): void {
    this.routes.add({
      route: '/v1/batches',
      endpoints: ['/v1/batches', '/v1/batches/{id}', '/v1/batches/{id}/cancel'].map((path) => ({ methods: ['GET', 'POST'], path })),
      matches: (method, path) => PATH.test(path) && (method === 'GET' || method === 'POST'),
      handle: (request, response, path) => this.answer(request, response, path),
    });
  }

  private async answer(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    try {
      const caller = await this.authentication.caller(request);
      const [, rawId, cancel] = PATH.exec(path) ?? [];
      const method = request.method;
      if (rawId === undefined) {
        if (method === 'POST') return sendJson(response, await this.create(caller, await readJsonObject(request, 'checked')));
        return sendJson(response, await this.store.list('batch', caller, queryOf(request.url)));
      }
      const batch = await this.store.find('batch', pathId(rawId, 'batch_id'), caller);
      if (!mayUseAlias(caller, batch.alias)) throw keyModelAccessDenied(batch.alias);
      const deployment = this.upstream.deployment(batch.deploymentId);
      const upstreamPath = `/batches/${encodeURIComponent(batch.upstreamId)}`;
      if (cancel !== undefined) {
        if (method !== 'POST') throw notServed(method, path);
        return sendJson(response, await this.ledger.observe(batch, await this.upstream.json(deployment, { method: 'POST', path: `${upstreamPath}/cancel` })));
      }
      if (method !== 'GET') throw notServed(method, path);
      sendJson(response, await this.ledger.observe(batch, await this.upstream.json(deployment, { method: 'GET', path: upstreamPath })));
    } catch (error) {
      sendError(OPENAI_CHAT, response, error);
    }
  }

  /** On the input file's deployment, within the key's budget and rate limits (counted as one request; its cost follows when it ends). */
  private async create(caller: GatewayCaller, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const inputFileId = body['input_file_id'];
    if (typeof inputFileId !== 'string' || inputFileId === '') throw badRequest('input_file_id is required.', 'input_file_id');
    const file = await this.store.find('file', checkedId(inputFileId, 'input_file_id'), caller);
    if (!mayUseAlias(caller, file.alias)) throw keyModelAccessDenied(file.alias);
    const deployment = this.upstream.deployment(file.deploymentId);
    const admission = await this.accounting.admit(caller, file.alias);
    let object: Record<string, unknown>;
    try {
      object = await this.upstream.json(deployment, { method: 'POST', path: '/batches', json: { ...body, input_file_id: file.upstreamId } });
    } finally {
      admission.settle({ alias: file.alias, deployment: undefined, usage: NO_USAGE, cost: 0 });
    }
    const id = gatewayId('batch');
    const batch = {
      id,
      kind: 'batch' as const,
      alias: file.alias,
      deploymentId: deployment.id,
      upstreamId: String(object['id']),
      object: { ...object, id },
      nextPollAt: new Date(),
    };
    await this.store.add(caller, batch);
    return this.ledger.observe(await this.store.find('batch', id, caller), object);
  }
}
