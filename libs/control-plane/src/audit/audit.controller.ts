import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdministrationApi } from '../openapi/administration-api.decorator';
import { AuditQuery } from './audit-query.service';
import { AuditListResponse } from './dto/audit-entry.response';
import { ListAuditQuery } from './dto/list-audit.query';

@ApiTags('audit')
@AdministrationApi()
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditQuery) {}

  @Get()
  @ApiOperation({ summary: 'The audit log, newest first: who changed what, when (never a secret value)' })
  @ApiOkResponse({ type: AuditListResponse })
  @ApiBadRequestResponse({ description: '`invalid_request`: a malformed filter, limit or before_id.' })
  list(@Query() query: ListAuditQuery): Promise<AuditListResponse> {
    return this.audit.list(query);
  }
}
