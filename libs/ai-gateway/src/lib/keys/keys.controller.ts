import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { GuardedRequest, PermissionGuard, PermittedProjects, projectInBody, RequirePermission } from '@arbor/contract';
import { ApiError, excerpt, UuidParam } from '@arbor/platform';
import { AI_GATEWAY, KeyProject, OPERATOR, READERS } from '../admin/admin-access';
import { CreateKeyDto } from './dto/create-key.dto';
import { KeyListResponse, keyResponse, KeyResponse } from './dto/key.response';
import { UpdateKeyDto } from './dto/update-key.dto';
import { KeysService } from './keys.service';

/**
 * /api/v1/keys: the admin API of virtual keys, for the master key and for persons the control
 * plane grants ai-gateway.operator (manage) or ai-gateway.viewer (read, never a key's secret) on
 * the key's project. Errors in the platform envelope, not OpenAI-format.
 */
@ApiTags('keys')
@ApiBearerAuth()
@Controller('api/v1/keys')
export class KeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly permissions: PermissionGuard,
  ) {}

  @Post()
  @ApiCreatedResponse({ type: KeyResponse, description: 'The new key, with `key` (shown this once).' })
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: projectInBody() })
  async create(@Req() request: GuardedRequest, @Body() body: CreateKeyDto): Promise<KeyResponse> {
    const { row, key } = await this.keys.create(body, byOwnCredential(request));
    return keyResponse(row, key);
  }

  @Get()
  @ApiQuery({ name: 'project', required: false, description: 'Only the keys of this project; absent: of every project the caller may read.' })
  @ApiOkResponse({ type: KeyListResponse, description: 'The keys, never their secrets.' })
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  async list(@PermittedProjects() permitted: 'all' | string[], @Query('project') project?: string): Promise<KeyListResponse> {
    if (project !== undefined && permitted !== 'all' && !permitted.includes(project)) {
      throw new ApiError(403, 'forbidden', `Listing keys of project "${excerpt(project)}" needs the permission ai-gateway.viewer or ai-gateway.operator on it.`);
    }
    const rows = await this.keys.list(project !== undefined ? [project] : permitted);
    return { keys: rows.map((row) => keyResponse(row)) };
  }

  @Get(':id')
  @ApiOkResponse({ type: KeyResponse, description: 'The key.' })
  @RequirePermission(AI_GATEWAY, READERS, { project: KeyProject })
  async get(@Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    return keyResponse(await this.keys.get(id));
  }

  @Patch(':id')
  @ApiOkResponse({ type: KeyResponse, description: 'The key as changed.' })
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: KeyProject })
  async update(@Req() request: GuardedRequest, @Param('id', new UuidParam('id')) id: string, @Body() body: UpdateKeyDto): Promise<KeyResponse> {
    // Moving a key to another project needs the operator role there too.
    if (body.project !== undefined) await this.permissions.requireOn(request, AI_GATEWAY, OPERATOR, { slug: body.project });
    return keyResponse(await this.keys.update(id, body, byOwnCredential(request)));
  }

  @Post(':id/block')
  @ApiOkResponse({ type: KeyResponse, description: 'The key, blocked: its calls are refused until unblocked.' })
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: KeyProject })
  async block(@Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    return keyResponse(await this.keys.setBlocked(id, true));
  }

  @Post(':id/unblock')
  @ApiOkResponse({ type: KeyResponse, description: 'The key, unblocked.' })
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: KeyProject })
  async unblock(@Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    return keyResponse(await this.keys.setBlocked(id, false));
  }

  @Post(':id/rotate')
  @ApiOkResponse({ type: KeyResponse, description: 'The key with its new `key` (shown this once); the old one stops working.' })
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: KeyProject })
  async rotate(@Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    const { row, key } = await this.keys.rotate(id);
    return keyResponse(row, key);
  }

  @Delete(':id')
  @ApiNoContentResponse({ description: 'Deleted: the key stops working.' })
  @HttpCode(204)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: KeyProject })
  async delete(@Param('id', new UuidParam('id')) id: string): Promise<void> {
    await this.keys.delete(id);
  }
}

/** The master key (the gateway's own credential) rather than a person: the guard left no caller. */
function byOwnCredential(request: GuardedRequest): boolean {
  return request.controlPlaneCaller === undefined;
}
