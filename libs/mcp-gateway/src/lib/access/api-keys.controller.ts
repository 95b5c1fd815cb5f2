import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Delete, Get, HttpCode, Injectable, Param, Patch, Post, Query } from '@nestjs/common';
import { GuardedRequest, PermittedProjects, ProjectResolver, projectInBody, RequirePermission, RouteProject } from '@arbor/contract';
import { InjectDataSource } from '@nestjs/typeorm';
import { IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { DataSource, In } from 'typeorm';
import { ApiError, Omittable, UuidParam, excerpt } from '@arbor/platform';
import { MCP_GATEWAY, OPERATOR, READERS } from '../admin/admin-access';
import { IsProjectSlug, IsToolScope } from '../admin/dto/admin-fields';
import { MCP_API_KEYS } from './api-key-material';
import { McpControlPlaneProjects } from '../projects/control-plane-projects';
import { ContractMcpAccessPolicy } from './contract-access-policy';
import { McpApiKey } from './mcp-api-key.entity';

export class CreateMcpApiKeyDto {
  @ApiProperty({ example: 'alpha' })
  @IsProjectSlug()
  project!: string;

  @ApiPropertyOptional({ example: 'CI agent', maxLength: 200 })
  @Omittable()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expires_at must be an ISO 8601 time' })
  expires_at?: string | null;

  /** The only tools the key sees and calls, by the names its project's servers expose them under (or `<upstream>__<tool>`); absent: every tool. */
  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 1000, example: ['search_issues'] })
  @Omittable()
  @IsToolScope()
  tools?: string[];
}

/** Fields left out stay as they are; `tools: null` gives the key every tool again. */
export class UpdateMcpApiKeyDto {
  @ApiPropertyOptional({ example: 'CI agent', maxLength: 200 })
  @Omittable()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: [String], nullable: true, minItems: 1, maxItems: 1000, example: ['search_issues'] })
  @IsOptional()
  @IsToolScope()
  tools?: string[] | null;
}

/** A gateway API key as the admin API shows it: never the key, except `key` once on create. */
export class McpApiKeyResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'alpha' })
  project!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: [String], nullable: true, description: 'The only tools it sees and calls; null: every tool.' })
  tools!: string[] | null;

  @ApiProperty()
  key_hint!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ description: 'Only in the answer that created the key: it is not stored and cannot be shown again.' })
  key?: string;
}

export class McpApiKeyListResponse {
  @ApiProperty({ type: [McpApiKeyResponse] })
  keys!: McpApiKeyResponse[];
}

function keyResponse(row: McpApiKey, key?: string): McpApiKeyResponse {
  return {
    id: row.id,
    project: row.project,
    name: row.name,
    tools: row.tools ?? null,
    key_hint: row.keyHint,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    ...(key !== undefined ? { key } : {}),
  };
}

/** The project of the API key named by the route's `:id` (404 for an unknown key, for anyone). */
@Injectable()
export class McpApiKeyProject implements ProjectResolver {
  private readonly uuid = new UuidParam('id');

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async projectOf(request: GuardedRequest): Promise<RouteProject> {
    const id = this.uuid.transform(request.params?.['id']);
    const row = await this.dataSource.getRepository(McpApiKey).findOneBy({ id });
    if (!row) throw new ApiError(404, 'key_not_found', `No API key ${id}.`);
    return { slug: row.project };
  }
}

/**
 * /api/v1/keys: gateway API keys for MCP clients that cannot sign in (agents, CI), each bound to a
 * project, managed by that project's operators (mcp-gateway.operator) and listed to its viewers. Only hashes are stored.
 */
@ApiTags('keys')
@ApiBearerAuth()
@Controller('api/v1/keys')
export class McpApiKeysController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly policy: ContractMcpAccessPolicy,
    private readonly projects: McpControlPlaneProjects,
  ) {}

  @Post()
  @ApiCreatedResponse({ type: McpApiKeyResponse, description: 'The new key, with `key` (shown this once).' })
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: projectInBody() })
  async create(@Body() body: CreateMcpApiKeyDto): Promise<McpApiKeyResponse> {
    const project = await this.projects.require(body.project);
    const key = MCP_API_KEYS.generate();
    const row = await this.dataSource.getRepository(McpApiKey).save({
      keyHash: MCP_API_KEYS.hash(key),
      keyHint: MCP_API_KEYS.hint(key),
      project: body.project,
      projectId: project?.id ?? null,
      name: body.name ?? '',
      tools: body.tools ? [...new Set(body.tools)] : null,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    });
    return keyResponse(row, key);
  }

  @Get()
  @ApiQuery({ name: 'project', required: false, description: "Only this project's keys; absent: of every project the caller may read." })
  @ApiOkResponse({ type: McpApiKeyListResponse })
  @RequirePermission(MCP_GATEWAY, READERS, { project: 'any' })
  async list(@PermittedProjects() operated: 'all' | string[], @Query('project') project?: string): Promise<McpApiKeyListResponse> {
    if (project !== undefined && operated !== 'all' && !operated.includes(project)) {
      throw new ApiError(403, 'forbidden', `Listing the API keys of project "${excerpt(project)}" needs the permission mcp-gateway.viewer or mcp-gateway.operator on it.`);
    }
    const projects = project !== undefined ? [project] : operated;
    const rows = await this.dataSource.getRepository(McpApiKey).find({
      where: projects === 'all' ? {} : { project: In(projects) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return { keys: rows.map((row) => keyResponse(row)) };
  }

  /** Its name or tool scope; open sessions of the key on this replica are told their tool list changed, other replicas' within seconds. */
  @Patch(':id')
  @ApiOkResponse({ type: McpApiKeyResponse, description: 'The key as changed.' })
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: McpApiKeyProject })
  async update(@Param('id', new UuidParam('id')) id: string, @Body() body: UpdateMcpApiKeyDto): Promise<McpApiKeyResponse> {
    const repository = this.dataSource.getRepository(McpApiKey);
    const row = await repository.findOneBy({ id });
    if (!row) throw new ApiError(404, 'key_not_found', `No API key ${id}.`);
    if (body.name !== undefined) row.name = body.name;
    if (body.tools !== undefined) row.tools = body.tools === null ? null : [...new Set(body.tools)];
    const saved = await repository.save(row);
    this.policy.keyScopeChanged(saved);
    return keyResponse(saved);
  }

  @Delete(':id')
  @ApiNoContentResponse({ description: 'Deleted: the key stops working.' })
  @HttpCode(204)
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: McpApiKeyProject })
  async delete(@Param('id', new UuidParam('id')) id: string): Promise<void> {
    const repository = this.dataSource.getRepository(McpApiKey);
    const row = await repository.findOneBy({ id });
    if (!row) throw new ApiError(404, 'key_not_found', `No API key ${id}.`);
    await repository.delete({ id });
    // This replica stops honouring it at once; others within the policy's short cache time.
    this.policy.forgetKey(row.keyHash);
  }
}
