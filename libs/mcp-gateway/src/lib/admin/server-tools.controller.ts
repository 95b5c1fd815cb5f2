import type { IncomingMessage } from 'node:http';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Optional, Param, Post, Req } from '@nestjs/common';
import { ErrorCode, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { IsObject, IsOptional } from 'class-validator';
import { RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { McpAccessError, McpAccessGrant, McpAccessPolicy } from '../access/mcp-access';
import { McpMetrics } from '../metrics/mcp-metrics';
import type { ToolCallHour } from '../metrics/recent-tool-calls';
import { HotAnswer, HotPath, HotRequest } from '../transports/hot-path';
import { MCP_GATEWAY, READERS, ServerProject } from './admin-access';

export class ToolCallDto {
  /** The tool's input, as its inputSchema describes it. */
  @IsOptional()
  @IsObject({ message: 'arguments must be an object of the arguments the tool takes' })
  arguments?: Record<string, unknown>;
}

/** A tool as the caller's MCP client lists it (MCP's Tool). */
export class McpToolResponse {
  @ApiProperty({ description: 'As the server exposes it.' })
  name!: string;

  @ApiPropertyOptional()
  title?: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: "The tool's input as a JSON Schema object." })
  inputSchema!: Record<string, unknown> & { type: 'object' };

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  annotations?: Record<string, unknown>;
}

export class McpToolListResponse {
  @ApiProperty({ type: [McpToolResponse] })
  tools!: McpToolResponse[];
}

/** One piece of a tool's result (MCP's content block: text, image, audio, resource…). */
export class ToolResultContentResponse {
  @ApiProperty({ example: 'text' })
  type!: string;

  @ApiPropertyOptional({ description: 'Of a `text` block.' })
  text?: string;

  [field: string]: unknown;
}

/** A tools/call result (MCP's CallToolResult). */
export class ToolResultResponse {
  @ApiProperty({ type: [ToolResultContentResponse] })
  content!: ToolResultContentResponse[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  structuredContent?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'A tool error: the tool ran and failed.' })
  isError?: boolean;
}

/** One tool's calls in one hour (this replica's). */
export class ToolCallHourResponse implements ToolCallHour {
  @ApiProperty({ format: 'date-time', description: "The hour's start." })
  hour!: string;

  @ApiProperty()
  tool!: string;

  @ApiProperty({ type: 'integer' })
  calls!: number;

  @ApiProperty({ type: 'integer' })
  errors!: number;

  @ApiProperty({ type: Number, nullable: true, description: "Mean time to the upstream's answer in milliseconds; null for an hour without calls." })
  mean_latency_ms!: number | null;
}

export class ToolCallHoursResponse {
  @ApiProperty({ type: [ToolCallHourResponse] })
  hours!: ToolCallHourResponse[];
}

/** At most this many pages of a catalogue are read for one answer (the pool caps an upstream's at 1000). */
const MAX_PAGES = 100;

/**
 * /api/v1/servers/{id}/tools: a virtual server's tools as the signed-in person's MCP client sees
 * them, and a call of one (the admin UI's "try it"). Both go the way an MCP request goes — the
 * MCP endpoints' access policy, the caller's catalogue (access decisions, guardrails) and the
 * pool's upstream sessions (metrics) — so what works here works from a client, and nothing else.
 * /api/v1/servers/{id}/tool-calls: each tool's calls, errors and latency hour by hour (this replica's).
 */
@ApiTags('servers')
@ApiBearerAuth()
@Controller('api/v1/servers/:id')
export class ServerToolsController {
  constructor(
    @Optional() private readonly policy?: McpAccessPolicy,
    @Optional() private readonly hotPath?: HotPath,
    @Optional() private readonly metrics?: McpMetrics,
  ) {}

  @Get('tools')
  @ApiOperation({ summary: "The server's tools as the caller's MCP client lists them (names as exposed, descriptions, input schemas)" })
  @ApiOkResponse({ type: McpToolListResponse })
  async tools(@Req() request: IncomingMessage, @Param('id') id: string): Promise<{ tools: Tool[] }> {
    const { hotPath, grant } = await this.admit(request, id);
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = (await this.answer(hotPath, { kind: 'list', id: page, cursor }, id, grant)) as { tools: Tool[]; nextCursor?: string };
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return { tools };
  }

  @Post('tools/:tool/call')
  @HttpCode(200)
  @ApiOperation({ summary: 'Calls a tool of the server as the caller, as tools/call would; a tool error is a result with isError' })
  @ApiBody({ schema: { type: 'object', properties: { arguments: { type: 'object', additionalProperties: true } } } })
  @ApiOkResponse({ type: ToolResultResponse, description: 'The CallToolResult' })
  async call(@Req() request: IncomingMessage, @Param('id') id: string, @Param('tool') tool: string, @Body() body: ToolCallDto): Promise<unknown> {
    const { hotPath, grant } = await this.admit(request, id);
    const call: HotRequest = { kind: 'call', id: 1, params: { name: tool, ...(body.arguments ? { arguments: body.arguments } : {}) } };
    return this.answer(hotPath, call, id, grant);
  }

  @Get('tool-calls')
  @RequirePermission(MCP_GATEWAY, READERS, { project: ServerProject })
  @ApiOperation({ summary: "Each of the server's tools hour by hour over the last 24 hours: calls, errors and mean latency (this replica's calls)" })
  @ApiOkResponse({ type: ToolCallHoursResponse })
  async toolCalls(@Param('id') id: string): Promise<ToolCallHoursResponse> {
    return { hours: this.metrics?.recentToolCalls.byToolLastDay(id) ?? [] };
  }

  /** The caller's grant on the server, as the MCP endpoints decide it. */
  private async admit(request: IncomingMessage, serverId: string): Promise<{ hotPath: HotPath; grant: McpAccessGrant }> {
    if (!this.hotPath || !this.policy) throw new ApiError(503, 'catalogue_unavailable', 'This gateway runs without the upstream runtime, so it has no catalogue.');
    try {
      return { hotPath: this.hotPath, grant: await this.policy.authorize(request, serverId) };
    } catch (error) {
      if (error instanceof McpAccessError) throw new ApiError(error.status, error.code, error.message, undefined, error.headers);
      throw error;
    }
  }

  private async answer(hotPath: HotPath, request: HotRequest, serverId: string, grant: McpAccessGrant): Promise<unknown> {
    const answered: HotAnswer = await hotPath.answer(request, serverId, grant, new AbortController().signal);
    if ('result' in answered) return answered.result;
    const { code, message } = answered.error;
    if (code === ErrorCode.MethodNotFound) throw new ApiError(404, 'no_tools', `The virtual server "${excerpt(serverId)}" offers no tools.`);
    // What an MCP client would get as the JSON-RPC error: arguments the upstream refused, or an upstream down or too slow.
    if (code === ErrorCode.InvalidParams) throw new ApiError(400, 'invalid_tool_arguments', message, { jsonrpc_code: code });
    throw new ApiError(502, 'tool_call_failed', message, { jsonrpc_code: code });
  }
}
