import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
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

/** Who made a tool call: a person (their control-plane user id) or a gateway API key. */
export class ToolCallCallerResponse {
  @ApiProperty({ enum: ['person', 'key'] })
  kind!: 'person' | 'key';

  @ApiProperty()
  id!: string;

  @ApiProperty()
  name!: string;
}

/** One tool call of the audit. */
export class ToolCallResponse {
  @ApiProperty({ example: '1042' })
  id!: string;

  @ApiProperty({ format: 'date-time' })
  called_at!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The virtual server; null for `/mcp`.' })
  server!: string | null;

  @ApiProperty({ type: [String] })
  projects!: string[];

  @ApiProperty({ type: ToolCallCallerResponse })
  caller!: ToolCallCallerResponse;

  @ApiProperty({ type: String, nullable: true })
  upstream!: string | null;

  @ApiProperty()
  tool!: string;

  @ApiProperty({ enum: TOOL_CALL_OUTCOMES })
  outcome!: ToolCallOutcome;

  @ApiProperty({ type: 'integer' })
  duration_ms!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The JSON-RPC error code of an `error` outcome.' })
  error_code!: number | null;

  @ApiPropertyOptional({ description: "Only with the server's `audit_payloads`, as the guardrails left them." })
  arguments?: unknown;

  @ApiPropertyOptional({ description: "Only with the server's `audit_payloads`, as the guardrails left it." })
  result?: unknown;
}

/** A page of the audit, newest first. */
export class ToolCallPageResponse {
  @ApiProperty({ type: [ToolCallResponse] })
  tool_calls!: ToolCallResponse[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as before_id for the next page; null on the last.' })
  next_before_id!: string | null;
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
  @ApiOkResponse({ type: ToolCallPageResponse })
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: 'any' })
  async list(@Req() request: GuardedRequest, @PermittedProjects() operated: 'all' | string[], @Query() query: ListToolCallsQuery): Promise<ToolCallPageResponse> {
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
