import type { ServerResponse } from 'node:http';
import { Controller, Get, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { Federation } from '../federation/federated-session';
import { DownstreamSessions } from './downstream-sessions';
import { McpEdge, McpHttpRequest, refusal, sendRefusal } from './mcp-edge';

/**
 * The HTTP+SSE transport of 2024-11-05: a GET opens the event stream and names the endpoint where
 * the client POSTs its messages (`…/message?sessionId=…`). Every stream is a session with upstream
 * sessions of its own.
 */
@Controller()
export class LegacySseController {
  private readonly logger = new Logger('LegacySse');

  constructor(
    private readonly edge: McpEdge,
    private readonly federation: Federation,
    private readonly sessions: DownstreamSessions,
  ) {}

  @Get('sse')
  unionStream(@Req() req: McpHttpRequest, @Res() res: ServerResponse): Promise<void> {
    return this.open(req, res, null);
  }

  @Get('servers/:id/sse')
  serverStream(@Req() req: McpHttpRequest, @Res() res: ServerResponse, @Param('id') id: string): Promise<void> {
    return this.open(req, res, id);
  }

  @Post('message')
  unionMessage(@Req() req: McpHttpRequest, @Res() res: ServerResponse, @Query('sessionId') sessionId: unknown): Promise<void> {
    return this.post(req, res, null, sessionId);
  }

  @Post('servers/:id/message')
  serverMessage(@Req() req: McpHttpRequest, @Res() res: ServerResponse, @Param('id') id: string, @Query('sessionId') sessionId: unknown): Promise<void> {
    return this.post(req, res, id, sessionId);
  }

  private async open(req: McpHttpRequest, res: ServerResponse, serverId: string | null): Promise<void> {
    try {
      const admission = await this.edge.admit(req, serverId, false);
      if ('refusal' in admission) return sendRefusal(res, admission.refusal);
      const federated = await this.federation.open({ serverId, grant: admission.grant, ownUpstreamSessions: true });
      // Relative to where the stream was opened, so a path prefix in front of the gateway still works.
      const endpoint = (req.originalUrl ?? req.url ?? '').split('?')[0].replace(/\/sse$/, '/message');
      const transport = new SSEServerTransport(endpoint, res);
      const id = transport.sessionId;
      transport.onclose = () => void this.sessions.end(id);
      this.sessions.add({ id, serverId, federated, transport, lastUsed: Date.now(), expires: false });
      await federated.server.connect(transport);
    } catch (error) {
      this.logger.error(`SSE stream failed: ${error instanceof Error ? error.message : String(error)}`);
      sendRefusal(res, refusal(500, 'Internal error', undefined, -32603));
    }
  }

  private async post(req: McpHttpRequest, res: ServerResponse, serverId: string | null, sessionId: unknown): Promise<void> {
    try {
      const admission = await this.edge.admit(req, serverId, true);
      if ('refusal' in admission) return sendRefusal(res, admission.refusal);
      const session = typeof sessionId === 'string' ? this.sessions.find(sessionId, admission.grant.principal, serverId, SSEServerTransport) : undefined;
      if (!session) return sendRefusal(res, refusal(404, 'Session not found', undefined, -32001));
      session.federated.updateGrant(admission.grant);
      await session.transport.handlePostMessage(req, res, admission.body);
    } catch (error) {
      this.logger.error(`SSE message failed: ${error instanceof Error ? error.message : String(error)}`);
      sendRefusal(res, refusal(500, 'Internal error', undefined, -32603));
    }
  }
}
