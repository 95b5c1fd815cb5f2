import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { ProviderError, readAll, type UpstreamResponse } from '@arbor/provider-adapters';
import type { GatewayDeployment } from '../config/gateway-config';
import { sendError } from '../endpoints/endpoint-codec';
import { OPENAI_CHAT } from '../endpoints/openai/openai-codecs';
import { GatewayAuthentication } from '../gateway-key.guard';
import { type GatewayCaller, mayUseAlias } from '../keys/key-verifier';
import { gatewayId, ResourceStore } from './resource-store';
import { abortOnClose, pathId, queryOf, relay, sendJson } from './resource-replies';
import { namedAlias, ResourceUpstream, upstreamFailure } from './resource-upstream';
import { batchLineModel, UploadRelay } from './upload-relay';
import { keyModelAccessDenied } from '../gateway-errors';
import type { OwnedResource } from './owned-resource.entity';

const PATH = /^\/v1\/files(?:\/([^/]+)(\/content)?)?$/;
/** LiteLLM's form field naming the alias of an upload. */
const TARGET_FIELD = 'target_model_names';
/** LiteLLM's form field naming the provider of an upload that names no alias. */
const PROVIDER_FIELD = 'custom_llm_provider';

/**
 * OpenAI's Files API with ids of the gateway's own: an upload goes, streamed, to a deployment of
 * the alias it names and is owned by the key's project; list, retrieve, content (streamed) and
 * delete answer for that project's files only.
 */
@Injectable()
export class FilesRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly store: ResourceStore,
    private readonly upstream: ResourceUpstream,
  ) {}

  onModuleInit(): void {
    this.routes.add({
      route: '/v1/files',
      endpoints: ['/v1/files', '/v1/files/{id}', '/v1/files/{id}/content'].map((path) => ({ methods: ['GET', 'POST', 'DELETE'], path })),
      matches: (method, path) => PATH.test(path) && ['GET', 'POST', 'DELETE'].includes(method),
      handle: (request, response, path) => this.answer(request, response, path),
    });
  }

  private async answer(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    try {
      const caller = await this.authentication.caller(request);
      const [, rawId, content] = PATH.exec(path) ?? [];
      const method = request.method;
      if (rawId === undefined) {
        if (method === 'POST') return await this.upload(caller, request, response);
        if (method === 'GET') {
          const query = queryOf(request.url);
          const purpose = query.get('purpose');
          return sendJson(response, await this.store.list('file', caller, query, purpose === null ? {} : { purpose }));
        }
        throw notServed(method, path);
      }
      const file = await this.owned(caller, pathId(rawId, 'file_id'));
      const deployment = this.upstream.deployment(file.deploymentId);
      if (content !== undefined) {
        if (method !== 'GET') throw notServed(method, path);
        const answer = await this.upstream.send(deployment, { method: 'GET', path: `/files/${encodeURIComponent(file.upstreamId)}/content`, signal: abortOnClose(response) });
        if (answer.statusCode >= 300) throw await upstreamFailure(answer);
        return await relay(response, answer);
      }
      if (method === 'GET') {
        const object = await this.upstream.json(deployment, { method: 'GET', path: `/files/${encodeURIComponent(file.upstreamId)}` });
        const seen = { ...object, id: file.id };
        await this.store.setObject(file.id, seen);
        return sendJson(response, seen);
      }
      if (method === 'DELETE') {
        await this.upstream.json(deployment, { method: 'DELETE', path: `/files/${encodeURIComponent(file.upstreamId)}` });
        await this.store.remove(file.id);
        return sendJson(response, { id: file.id, object: 'file', deleted: true });
      }
      throw notServed(method, path);
    } catch (error) {
      sendError(OPENAI_CHAT, response, error);
    }
  }

  private async owned(caller: GatewayCaller, id: string): Promise<OwnedResource> {
    const file = await this.store.find('file', id, caller);
    if (!mayUseAlias(caller, file.alias)) throw keyModelAccessDenied(file.alias);
    return file;
  }

  /**
   * The form passed on as it arrives; the alias is read from target_model_names (sent before the
   * file), else the x-arbor-model header, else the key's default (of custom_llm_provider when the
   * form names one). Batch input lines naming the
   * alias name the deployment's model instead, as the upstream wants.
   */
  private async upload(caller: GatewayCaller, request: IncomingMessage, response: ServerResponse): Promise<void> {
    let deployment: GatewayDeployment;
    const relayed = new UploadRelay(request, [TARGET_FIELD, PROVIDER_FIELD]);
    const start = await relayed.started;
    let answer: UpstreamResponse;
    try {
      const named = start.fields.get(TARGET_FIELD)?.split(',')[0]?.trim() || namedAlias(request);
      deployment = this.upstream.deploymentFor(caller, named, 'file', start.fields.get(PROVIDER_FIELD)?.trim() || undefined);
      relayed.begin(deployment.alias === deployment.model ? undefined : batchLineModel(deployment.alias, deployment.model));
      answer = await this.upstream.send(deployment, {
        method: 'POST',
        path: '/files',
        body: relayed.body,
        headers: { 'content-type': `multipart/form-data; boundary=${relayed.boundary}` },
        signal: abortOnClose(response),
      });
      if (answer.statusCode < 200 || answer.statusCode >= 300) throw await upstreamFailure(answer);
    } catch (error) {
      relayed.abandon();
      throw error;
    }
    await relayed.finished;
    const object = JSON.parse((await readAll(answer.body, 1024 * 1024)).toString('utf8')) as Record<string, unknown>;
    const id = gatewayId('file');
    const seen = { ...object, id };
    await this.store.add(caller, { id, kind: 'file', alias: deployment.alias, deploymentId: deployment.id, upstreamId: String(object['id']), object: seen });
    sendJson(response, seen);
  }
}

export function notServed(method: string | undefined, path: string): ProviderError {
  return new ProviderError(404, 'invalid_request_error', `${method ?? ''} ${path} is not served by this gateway.`, 'not_served');
}
