import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { UuidParam } from '@arbor/platform';
import { AdminMasterKeyGuard } from '../gateway-key.guard';
import { CreateKeyDto } from './dto/create-key.dto';
import { keyResponse, KeyResponse } from './dto/key.response';
import { UpdateKeyDto } from './dto/update-key.dto';
import { KeysService } from './keys.service';

/**
 * /api/v1/keys: the admin API of virtual keys, for the master key only (persons with
 * ai-gateway.operator come later). Errors in the platform envelope, not family A.
 */
@Controller('api/v1/keys')
@UseGuards(AdminMasterKeyGuard)
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Post()
  async create(@Body() body: CreateKeyDto): Promise<KeyResponse> {
    const { row, key } = await this.keys.create(body);
    return keyResponse(row, key);
  }

  @Get()
  async list(@Query('project') project?: string): Promise<{ keys: KeyResponse[] }> {
    return { keys: (await this.keys.list(project)).map((row) => keyResponse(row)) };
  }

  @Get(':id')
  async get(@Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    return keyResponse(await this.keys.get(id));
  }

  @Patch(':id')
  async update(@Param('id', new UuidParam('id')) id: string, @Body() body: UpdateKeyDto): Promise<KeyResponse> {
    return keyResponse(await this.keys.update(id, body));
  }

  @Post(':id/block')
  @HttpCode(200)
  async block(@Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    return keyResponse(await this.keys.setBlocked(id, true));
  }

  @Post(':id/unblock')
  @HttpCode(200)
  async unblock(@Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    return keyResponse(await this.keys.setBlocked(id, false));
  }

  @Post(':id/rotate')
  @HttpCode(200)
  async rotate(@Param('id', new UuidParam('id')) id: string): Promise<KeyResponse> {
    const { row, key } = await this.keys.rotate(id);
    return keyResponse(row, key);
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@Param('id', new UuidParam('id')) id: string): Promise<void> {
    await this.keys.delete(id);
  }
}
