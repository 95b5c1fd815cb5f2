import { Inject, Injectable, Logger } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Router } from 'express';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { Transport } from '@a2a-js/sdk/client';
import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext, User } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { excerpt } from '@arbor/platform';
import { McpAccessError, McpAccessPolicy } from '../access/mcp-access';
import { ServerRegistry } from '../registry/server-registry';
import { checkUpstreamUrl, UpstreamUrlRefused } from '../registry/upstream-url-guard';
import { AgentCalls, type AgentMethod, AgentUnavailable, type CallOptions } from './agent-call';
import type { CredentialCaller } from '../credentials/credential-caller';
import { CredentialsUnavailable } from '../credentials/credentials.exception';
import { AGENTS_OPTIONS, AgentDirectory, type AgentsOptions } from './agent-directory';
import { gatewayCard } from './gateway-card';

/** The caller of one proxied request, as the SDK's handlers pass it on to the request handler. */
class GatewayUser implements User {
  constructor(readonly caller: CredentialCaller) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.caller.principal;
  }
}

const UNKNOWN_CALLER: CredentialCaller = { kind: 'machine', principal: 'unknown' };

const PATH = /^\/agents\/([^/?#]+)(\/[^?#]*)?/;

/**
 * `/agents/{name}`: each agent served by the gateway with the SDK's own server handlers — JSON-RPC
 * at the base, HTTP+JSON under `/rest`, the card at `/.well-known/agent-card.json` — for A2A v1.0
 * and (the SDK's compat layer) v0.3 clients, over a request handler that makes each call to the
 * agent with the SDK's client (whatever binding and version the agent speaks). Callers sign in as
 * for MCP and need a role on the agent's project; refusals are in A2A's error form.
 */
@Injectable()
export class AgentProxy {
  private readonly logger = new Logger('mcp-agents');
  private readonly routers = new Map<string, { version: number; router: RequestHandler }>();

  constructor(
    private readonly registry: ServerRegistry,
    private readonly directory: AgentDirectory,
    private readonly policy: McpAccessPolicy,
    private readonly calls: AgentCalls,
    @Inject(AGENTS_OPTIONS) private readonly options: AgentsOptions,
  ) {}

  /** Serves one request under `/agents/` (AgentProxyController's routes); what no agent route serves goes to `next`. */
  handle(req: Request, res: Response, next: NextFunction): void {
    this.serve(req, res, next).catch((error: unknown) => {
      this.logger.error(`agent request failed: ${(error as Error).message}`);
      if (!res.headersSent) refuse(req, res, 500, 'internal_error', 'The gateway could not serve this agent request.');
      else res.end();
    });
  }

  private async serve(req: Request, res: Response, next: NextFunction): Promise<void> {
    const match = PATH.exec(req.originalUrl);
    if (!match) return next();
    let name: string;
    try {
      name = decodeURIComponent(match[1]);
    } catch {
      return refuse(req, res, 400, 'invalid_request', 'The agent name in the path is not valid percent-encoding.');
    }
    const rest = match[2] ?? '/';
    const agent = this.registry.agent(name);
    let caller: CredentialCaller;
    try {
      // Credentials first, as for MCP: who may not sign in learns nothing of which agents exist.
      caller = await this.policy.authorizeProject(req, agent?.project ?? null);
    } catch (error) {
      if (!(error instanceof McpAccessError)) throw error;
      for (const [header, value] of Object.entries(error.headers)) res.setHeader(header, value);
      return refuse(req, res, error.status, error.code, error.message);
    }
    if (!agent || !this.directory.has(name)) return refuse(req, res, 404, 'agent_not_found', `No agent "${excerpt(name)}".`);
    (req as Request & { arborCaller?: CredentialCaller }).arborCaller = caller;
    const router = this.router(name);
    const query = req.url.indexOf('?');
    req.url = rest + (query >= 0 ? req.url.slice(query) : '');
    router(req, res, next);
  }

  private router(name: string): RequestHandler {
    const cached = this.routers.get(name);
    if (cached && cached.version === this.directory.version) return cached.router;
    const handler = new AgentRequestHandler(name, this.directory, this.calls, this.options);
    const userBuilder = async (req: Request) => new GatewayUser((req as Request & { arborCaller?: CredentialCaller }).arborCaller ?? UNKNOWN_CALLER);
    const router = Router();
    router.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: () => handler.getAgentCard(), legacyCompat: { enabled: true } }));
    router.use('/rest', restHandler({ requestHandler: handler, userBuilder, legacyCompat: { enabled: true } }));
    router.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder, legacyCompat: { enabled: true } }));
    this.routers.set(name, { version: this.directory.version, router });
    return router;
  }
}

/** One agent's calls, as the SDK's server handlers make them: each sent on with the SDK's client. */
class AgentRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly name: string,
    private readonly directory: AgentDirectory,
    private readonly calls: AgentCalls,
    private readonly options: AgentsOptions,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    const card = await this.directory.card(this.name);
    const definition = this.directory.definition(this.name);
    if (!card || !definition) throw new AgentUnavailable(this.name, 'its card has not been read yet');
    return gatewayCard(card, { publicUrl: this.options.publicUrl, name: this.name, agentUrls: [definition.url] });
  }

  /** The gateway's card says there is no extended card: what the agent would show a signed-in caller is the agent's business with the gateway. */
  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return this.getAgentCard();
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    await this.checkPushUrl(params.configuration?.taskPushNotificationConfig?.url, 'SendMessage', context);
    return this.call('SendMessage', context, (transport, options) => transport.sendMessage(params, options));
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    await this.checkPushUrl(params.configuration?.taskPushNotificationConfig?.url, 'SendStreamingMessage', context);
    yield* this.stream('SendStreamingMessage', context, (transport, options) => transport.sendMessageStream(params, options));
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.call('GetTask', context, (transport, options) => transport.getTask(params, options));
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.call('ListTasks', context, (transport, options) => transport.listTasks(params, options));
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.call('CancelTask', context, (transport, options) => transport.cancelTask(params, options));
  }

  resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    return this.stream('SubscribeToTask', context, (transport, options) => transport.resubscribeTask(params, options));
  }

  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    await this.checkPushUrl(params.url, 'CreateTaskPushNotificationConfig', context);
    return this.call('CreateTaskPushNotificationConfig', context, (transport, options) => transport.createTaskPushNotificationConfig(params, options));
  }

  getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.call('GetTaskPushNotificationConfig', context, (transport, options) => transport.getTaskPushNotificationConfig(params, options));
  }

  listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest, context: ServerCallContext): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.call('ListTaskPushNotificationConfigs', context, (transport, options) => transport.listTaskPushNotificationConfig(params, options));
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<void> {
    await this.call('DeleteTaskPushNotificationConfig', context, (transport, options) => transport.deleteTaskPushNotificationConfig(params, options));
  }

  /** One call for the request's caller; no credentials for them at the agent is an A2A error saying why. */
  private async call<T>(method: AgentMethod, context: ServerCallContext, send: (transport: Transport, options: CallOptions) => Promise<T>): Promise<T> {
    try {
      return await this.calls.call(this.name, method, caller(context), send);
    } catch (error) {
      throw a2aRefusal(error);
    }
  }

  private async *stream<T>(
    method: AgentMethod,
    context: ServerCallContext,
    open: (transport: Transport, options: CallOptions) => AsyncGenerator<T, void, undefined>,
  ): AsyncGenerator<T, void, undefined> {
    try {
      yield* this.calls.stream(this.name, method, caller(context), open);
    } catch (error) {
      throw a2aRefusal(error);
    }
  }

  /** The agent will POST task updates to a push URL: it must pass the address guard, as an upstream's URL does. */
  private async checkPushUrl(
    url: string | undefined,
    method: 'SendMessage' | 'SendStreamingMessage' | 'CreateTaskPushNotificationConfig',
    context: ServerCallContext,
  ): Promise<void> {
    if (url === undefined || url === '') return;
    try {
      await checkUpstreamUrl(url, { allowLinkLocal: this.options.allowLinkLocal });
    } catch (error) {
      if (!(error instanceof UpstreamUrlRefused)) throw error;
      if (error.reason === 'unresolvable') return;
      const reason = error.message.replace('the upstream', 'the push notification');
      this.calls.refused(this.name, method, caller(context), reason);
      throw new RequestMalformedError({ message: `${reason[0].toUpperCase()}${reason.slice(1)}.` });
    }
  }
}

/** CredentialsUnavailable as the A2A error the caller reads (its code and any connect link in the metadata); anything else as it is. */
function a2aRefusal(error: unknown): unknown {
  if (!(error instanceof CredentialsUnavailable)) return error;
  return new A2AError({
    message: error.connectUrl ? `${error.message}: ${error.connectUrl}` : error.message,
    metadata: { code: error.code, agent: error.upstream, ...(error.connectUrl ? { connect_url: error.connectUrl } : {}) },
  });
}

function caller(context: ServerCallContext): CredentialCaller {
  return context.user instanceof GatewayUser ? context.user.caller : UNKNOWN_CALLER;
}

const MAX_QUOTED_ID = 64;
const REST_STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

/**
 * A refusal in A2A's error form for the binding asked: a JSON-RPC error (code -32600, the
 * gateway's code in `data`) at the JSON-RPC endpoint, a `google.rpc.Status` with an ErrorInfo
 * (reason: the code in upper case) on the HTTP+JSON endpoints and the card.
 */
function refuse(req: Request, res: Response, status: number, code: string, message: string): void {
  const jsonRpc = req.method === 'POST' && !/^\/agents\/[^/]+\/(rest|\.well-known)(\/|$)/.test(req.originalUrl.split('?')[0]);
  if (jsonRpc) {
    const sent = typeof req.body === 'object' && req.body !== null && 'id' in req.body ? (req.body as { id: unknown }).id : null;
    // The request's id, as JSON-RPC answers; one too long to be an id is not quoted back.
    const id = typeof sent === 'number' || (typeof sent === 'string' && sent.length <= MAX_QUOTED_ID) ? sent : null;
    res.status(status).json({ jsonrpc: '2.0', id, error: { code: -32600, message, data: { code } } });
    return;
  }
  res.status(status).json({
    error: {
      code: status,
      status: REST_STATUS[status] ?? 'UNKNOWN',
      message,
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code.toUpperCase(), domain: 'mcp-gateway.arbor', metadata: {} }],
    },
  });
}
