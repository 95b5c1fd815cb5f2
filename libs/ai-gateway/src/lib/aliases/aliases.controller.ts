import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '@arbor/contract';
import { AI_GATEWAY, READERS } from '../admin/admin-access';
import { AliasCatalogue, AliasListResponse } from './alias-catalogue';

/**
 * /api/v1/aliases: what the gateway's keys can call, for the master key and for persons the
 * control plane grants ai-gateway.viewer or ai-gateway.operator on a project (aliases belong to
 * no project). Errors in the platform envelope.
 */
@ApiTags('aliases')
@ApiBearerAuth()
@Controller('api/v1/aliases')
export class AliasesController {
  constructor(private readonly catalogue: AliasCatalogue) {}

  @Get()
  @ApiOkResponse({ type: AliasListResponse, description: 'Every configured alias with its deployments, prices and health.' })
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  list(): AliasListResponse {
    return { aliases: this.catalogue.list() };
  }
}
