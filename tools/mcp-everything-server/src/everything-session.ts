// One MCP session of the everything server: an McpServer carrying every tool, resource and prompt,
// plus what the session chose (its log level, its resource subscriptions). `Everything` is what the
// sessions of one server share: the watched resource and who is subscribed to it.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  LoggingLevelSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { registerPrompts } from './prompts.ts';
import { registerResources, WATCHED_RESOURCE_URI } from './resources.ts';
import { registerTools } from './tools.ts';

export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const SEVERITY: readonly LoggingLevel[] = LoggingLevelSchema.options;

export class EverythingSession {
  readonly mcp: McpServer;
  readonly subscriptions = new Set<string>();
  logLevel: LoggingLevel | undefined;

  constructor(mcp: McpServer) {
    this.mcp = mcp;
  }

  // Log notifications ride on the stream of the request that caused them (so they arrive before its
  // answer) and are filtered by the level this session set with logging/setLevel.
  async log(extra: RequestExtra, level: LoggingLevel, data: string): Promise<void> {
    if (this.logLevel && SEVERITY.indexOf(level) < SEVERITY.indexOf(this.logLevel)) return;
    await extra.sendNotification({ method: 'notifications/message', params: { level, logger: 'mcp-everything-server', data } });
  }
}

export class Everything {
  readonly #sessions = new Set<EverythingSession>();
  #watchedVersion = 0;

  get watchedText(): string {
    return `Version ${this.#watchedVersion} of the watched resource.`;
  }

  // Changes the watched resource and tells every subscribed session: the caller on the stream of
  // its own request (so the update arrives before the answer), the others on their GET stream.
  async changeWatched(caller: EverythingSession, extra: RequestExtra): Promise<number> {
    this.#watchedVersion += 1;
    const notified = [...this.#sessions].filter((session) => session.subscriptions.has(WATCHED_RESOURCE_URI));
    await Promise.all(
      notified.map((session) =>
        session === caller
          ? extra.sendNotification({ method: 'notifications/resources/updated', params: { uri: WATCHED_RESOURCE_URI } })
          : session.mcp.server.sendResourceUpdated({ uri: WATCHED_RESOURCE_URI }).catch(() => undefined),
      ),
    );
    return this.#watchedVersion;
  }

  openSession(): EverythingSession {
    const mcp = new McpServer(
      { name: 'mcp-everything-server', version: '1.0.0' },
      {
        capabilities: {
          logging: {},
          completions: {},
          tools: { listChanged: true },
          prompts: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
        },
        instructions: 'A reference MCP server: every tool, resource and prompt the official conformance suite exercises.',
      },
    );
    const session = new EverythingSession(mcp);
    registerTools(mcp, session, this);
    registerResources(mcp, this);
    registerPrompts(mcp);

    mcp.server.setRequestHandler(SetLevelRequestSchema, (request) => {
      session.logLevel = request.params.level;
      return {};
    });
    mcp.server.setRequestHandler(SubscribeRequestSchema, (request) => {
      session.subscriptions.add(request.params.uri);
      return {};
    });
    mcp.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      session.subscriptions.delete(request.params.uri);
      return {};
    });

    this.#sessions.add(session);
    mcp.server.onclose = () => this.#sessions.delete(session);
    return session;
  }
}
