import { ApiBearerAuth, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Query, Req } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { DataSource } from 'typeorm';
import { GuardedRequest, PermissionGuard, PermittedProjects, RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { MCP_GATEWAY, OPERATOR } from '../admin/admin-access';
import { IsProjectSlug, IsServerId } from '../admin/dto/admin-fields';
import { ServerRegistry } from '../registry/server-registry';
import { TOOL_CALL_OUTCOMES, ToolCallOutcome } from './tool-call-audit';
import { ToolCallRow } from './tool-call.entity';

export const MAX_TOOL_CALLS_PER_PAGE = 200;

export class ListToolCallsQuery {
  @ApiPropertyOptional({ example: 'support', description: 'Only the calls through this virtual server.' })
  @IsOptional()
  @IsServerId()
  server?: string;

  @ApiPropertyOptional({ example: 'alpha', description: "Only the calls this project's operators may read." })
  @IsOptional()
  @IsProjectSlug()
  project?: string;

  @ApiPropertyOptional({ enum: TOOL_CALL_OUTCOMES, description: 'Only calls that ended so.' })
  @IsOptional()
  @IsIn(TOOL_CALL_OUTCOMES)
  outcome?: ToolCallOutcome;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_TOOL_CALLS_PER_PAGE, default: 50, description: 'Calls per page, newest first.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_TOOL_CALLS_PER_PAGE)
  limit = 50;

  @ApiPropertyOptional({ example: '1042', description: 'The next page: calls older than this id (`next_before_id` of the previous page).' })
  @IsOptional()
  @Matches(/^[0-9]{1,19}$/, { message: 'before_id must be a tool call id' })
  before_id?: string;
}

export interface ToolCallResponse {
  id: string;
  called_at: string;
  /** The virtual server; null for `/mcp`. */
  server: string | null;
  projects: string[];
  caller: { kind: 'person' | 'key'; id: string; name: string };
  upstream: string | null;
  tool: string;
  outcome: ToolCallOutcome;
  duration_ms: number;
  error_code: number | null;
  /** Only with the server's `audit_payloads`, as the guardrails left them. */
  arguments?: unknown;
  result?: unknown;
}

/**
 * /api/v1/tool-calls: the audit of tool calls, newest first, for the operators (mcp-gateway.operator)
 * of the projects the calls belong to; `?server=`, `?project=`, `?outcome=`, paged with `before_id`.
 */
@ApiTags('tool-calls')
@ApiBearerAuth()
@Controller('api/v1/tool-calls')
export class ToolCallsController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly registry: ServerRegistry,
    private readonly permissions: PermissionGuard,
  ) {}

  @Get()
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: 'any' })
  async list(
    @Req() request: GuardedRequest,
    @PermittedProjects() operated: 'all' | string[],
    @Query() query: ListToolCallsQuery,
  ): Promise<{ tool_calls: ToolCallResponse[]; next_before_id: string | null }> {
    if (query.project !== undefined && operated !== 'all' && !operated.includes(query.project)) {
      throw new ApiError(403, 'forbidden', `Reading the tool calls of project "${excerpt(query.project)}" needs the permission mcp-gateway.operator on it.`);
    }
    const server = query.server === undefined ? undefined : this.registry.server(query.server);
    if (server) await this.permissions.requireOn(request, MCP_GATEWAY, OPERATOR, { slug: server.project });
    const rows = this.dataSource
      .getRepository(ToolCallRow)
      .createQueryBuilder('call')
      .orderBy('call.id', 'DESC')
      .limit(query.limit + 1);
    // A row is readable by the operators of any project it belongs to.
    if (operated !== 'all') rows.andWhere('call.projects && :operated::text[]', { operated });
    if (query.project !== undefined) rows.andWhere(':project = any(call.projects)', { project: query.project });
    if (query.server !== undefined) rows.andWhere('call.server_id = :server', { server: query.server });
    if (query.outcome !== undefined) rows.andWhere('call.outcome = :outcome', { outcome: query.outcome });
    if (query.before_id !== undefined) rows.andWhere('call.id < :before', { before: query.before_id });
    const found = await rows.getMany();
    const page = found.slice(0, query.limit);
    return { tool_calls: page.map(toolCallResponse), next_before_id: found.length > query.limit ? (page[page.length - 1]?.id ?? null) : null };
  }
}

function toolCallResponse(row: ToolCallRow): ToolCallResponse {
  return {
    id: row.id,
    called_at: row.calledAt.toISOString(),
    server: row.serverId,
    projects: row.projects,
    caller: { kind: row.callerKind, id: row.callerId, name: row.callerName },
    upstream: row.upstream,
    tool: row.tool,
    outcome: row.outcome,
    duration_ms: row.durationMs,
    error_code: row.errorCode,
    ...(row.arguments !== null ? { arguments: row.arguments } : {}),
    ...(row.result !== null ? { result: row.result } : {}),
  };
}
