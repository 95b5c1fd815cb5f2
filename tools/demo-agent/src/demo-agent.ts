// A demo A2A agent built with the official SDK (@a2a-js/sdk): the MCP gateway's demo agent under
// `npm start` and the agent its integration tests register. It answers over JSON-RPC and
// HTTP+JSON, for A2A v1.0 clients and (through the SDK's compat layer) v0.3 ones.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express from 'express';
import { type AgentCard, type Message, type Part, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultExecutionEventBusManager,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type RequestContext,
  STATE_HEADERS_KEY,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface DemoAgentOptions {
  port?: number;
  host?: string;
  /** When set, every A2A request must carry `Authorization: Bearer <token>` (else 401): what the gateway's `auth` sends. */
  token?: string;
  /** How long each step of a long task takes (a message containing "slow"); default 200 ms. */
  stepMs?: number;
}

export interface DemoAgent {
  /** Its own address; the card is at `${url}/.well-known/agent-card.json`. */
  url: string;
  close(): Promise<void>;
}

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

function said(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/**
 * Answers "You said: …" at once; a message containing "slow" becomes a task that works in three
 * steps (status updates and artifact chunks on the stream) and completes with the artifact
 * `answer`; one containing "book" becomes a task that asks for a date (input-required) and, when a
 * message with its task id answers, completes with the artifact `booking`. Cancelling a working task stops it.
 */
class HelpdeskExecutor implements AgentExecutor {
  private readonly cancelled = new Set<string>();
  private readonly stepMs: number;

  constructor(stepMs: number) {
    this.stepMs = stepMs;
  }

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const question = said(request.userMessage);
    const { taskId, contextId } = request;
    const reply = (value: string): Message => ({
      messageId: randomUUID(),
      contextId,
      taskId: '',
      role: Role.ROLE_AGENT,
      parts: [text(value)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    });
    const status = (state: TaskState, message?: string) => ({
      state,
      message: message ? { ...reply(message), taskId } : undefined,
      timestamp: new Date().toISOString(),
    });
    if (request.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      // The answer to the question below: the same task goes on (a follow-up turn publishes the task first).
      bus.publish(AgentEvent.task({ ...request.task, status: status(TaskState.TASK_STATE_WORKING) }));
      const artifact = { artifactId: 'booking', name: 'booking', description: 'The booking', parts: [text(`Booked for ${question}.`)], metadata: undefined, extensions: [] };
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
      bus.finished();
      return;
    }
    if (question.includes('book')) {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(TaskState.TASK_STATE_INPUT_REQUIRED, 'For which date?'),
          artifacts: [],
          history: [request.userMessage],
          metadata: undefined,
        }),
      );
      bus.finished();
      return;
    }
    if (!question.includes('slow')) {
      // The trace context it was called in, for whoever checks that a trace crosses the gateway.
      const headers = request.context.state.get(STATE_HEADERS_KEY) as Record<string, string | string[] | undefined> | undefined;
      const traceparent = headers?.['traceparent'];
      bus.publish(AgentEvent.message({ ...reply(`You said: ${question}`), metadata: typeof traceparent === 'string' ? { traceparent } : undefined }));
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [request.userMessage], metadata: undefined }));
    const steps = ['Reading the question', 'Looking it up', 'Writing the answer'];
    for (const [index, step] of steps.entries()) {
      if (this.cancelled.delete(taskId)) {
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_CANCELED), metadata: undefined }));
        bus.finished();
        return;
      }
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING, `${step} (${index + 1}/${steps.length})`), metadata: undefined }));
      await new Promise((resolve) => setTimeout(resolve, this.stepMs));
    }
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId: 'answer', name: 'answer', description: 'The answer', parts: [text(`Answer: ${question}`)], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
    bus.finished();
  }

  async cancelTask(taskId: string): Promise<void> {
    this.cancelled.add(taskId);
  }
}

function card(url: string): AgentCard {
  const interfaces = (version: string) => [
    { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: version },
    { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: version },
  ];
  return {
    name: 'Helpdesk agent',
    description: 'Answers questions about the demo workspace; say "slow" for a task that takes a moment.',
    supportedInterfaces: [...interfaces('1.0'), ...interfaces('0.3')],
    provider: { organization: 'Arbor demo', url },
    version: '1.0.0',
    documentationUrl: `${url}/docs`,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'answer',
        name: 'Answer questions',
        description: 'Answers a question in plain text.',
        tags: ['helpdesk'],
        examples: ['How do I reset my password?'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
      {
        id: 'book',
        name: 'Book a room',
        description: 'Asks for the date, then books a meeting room.',
        tags: ['helpdesk'],
        examples: ['Book a room for the team'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  } as AgentCard;
}

/** Starts the agent; its card names its own address. */
export async function startDemoAgent(options: DemoAgentOptions = {}): Promise<DemoAgent> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve(listening));
  });
  const address = server.address() as { port: number };
  const url = `http://${options.host ?? '127.0.0.1'}:${address.port}`;
  const agentCard = card(url);
  const pushes = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    agentCard,
    new InMemoryTaskStore(),
    new HelpdeskExecutor(options.stepMs ?? 200),
    new DefaultExecutionEventBusManager(),
    pushes,
    new DefaultPushNotificationSender(pushes),
  );
  const token = options.token;
  if (token) {
    app.use('/a2a', (req, res, next) => {
      if (req.headers.authorization === `Bearer ${token}`) return next();
      res.status(401).json({ error: { code: 401, status: 'UNAUTHENTICATED', message: 'The demo agent wants its token.', details: [] } });
    });
  }
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  return {
    url,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
