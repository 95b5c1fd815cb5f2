import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiError, excerpt, UuidParam } from '@arbor/platform';
import { AdminAccess, AdminCaller, AdminGuard, CurrentAdmin } from '../admin/admin-access';
import { CreateKeyDto } from './dto/create-key.dto';
import { keyResponse, KeyResponse } from './dto/key.response';
import { UpdateKeyDto } from './dto/update-key.dto';
import { KeysService } from './keys.service';
import { VirtualKey } from './virtual-key.entity';

/**
 * /api/v1/keys: the admin API of virtual keys, for the master key and for persons with
 * ai-gateway.operator on the key's project. Errors in the platform envelope, not family A.
 */
@ApiTags('keys')
@ApiBearerAuth()
@Controller('api/v1/keys')
@UseGuards(AdminGuard)
export class KeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly access: AdminAccess,
  ) {}

  @Post()
  async create(@CurrentAdmin() caller: AdminCaller, @Body() body: CreateKeyDto): Promise<KeyResponse> {
    await this.access.assertOperator(caller, body.project);
    const { row, key } = await this.keys.create(body, caller.kind === 'master');
    return keyResponse(row, key);
  }

  @Get()
  async list(@CurrentAdmin() caller: AdminCaller, @Query('project') project?: string): Promise<{ keys: KeyResponse[] }> {
    const operated = await this.access.operatedProjects(caller);
    if (project !== undefined && operated !== 'all' && !operated.includes(project)) {
      throw new ApiError(403, 'forbidden', `Listing keys of project "${excerpt(project)}" needs the permission ai-gateway.operator on it.`);
    }
    const rows = await this.keys.list(project !== undefined ? [project] : operated);
    return { keys: rows.map((row) => keyResponse(row)) };
  }

  @Get(':id')
  async get(@CurrentAdmin() caller: AdminCaller, @Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    return keyResponse(await this.operated(caller, id));
  }

  @Patch(':id')
  async update(@CurrentAdmin() caller: AdminCaller, @Param('id', new UuidParam('id')) id: string, @Body() body: UpdateKeyDto): Promise<KeyResponse> {
    await this.operated(caller, id);
    // Moving a key to another project needs the operator role there too.
    if (body.project !== undefined) await this.access.assertOperator(caller, body.project);
    return keyResponse(await this.keys.update(id, body, caller.kind === 'master'));
  }

  @Post(':id/block')
  @HttpCode(200)
  async block(@CurrentAdmin() caller: AdminCaller, @Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    await this.operated(caller, id);
    return keyResponse(await this.keys.setBlocked(id, true));
  }

  @Post(':id/unblock')
  @HttpCode(200)
  async unblock(@CurrentAdmin() caller: AdminCaller, @Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    await this.operated(caller, id);
    return keyResponse(await this.keys.setBlocked(id, false));
  }

  @Post(':id/rotate')
  @HttpCode(200)
  async rotate(@CurrentAdmin() caller: AdminCaller, @Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    await this.operated(caller, id);
    const { row, key } = await this.keys.rotate(id);
    return keyResponse(row, key);
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@CurrentAdmin() caller: AdminCaller, @Param('id', new UuidParam('id')) id: string): Promise<void> {
    await this.operated(caller, id);
    await this.keys.delete(id);
  }

  /** The key, when the caller operates its project (an unknown id is a 404 for anyone: ids are random and say nothing). */
  private async operated(caller: AdminCaller, id: string): Promise<VirtualKey> {
    const row = await this.keys.get(id);
    await this.access.assertOperator(caller, row.project);
    return row;
  }
}
