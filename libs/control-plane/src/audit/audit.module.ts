import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditQuery } from './audit-query.service';

/** `GET /api/v1/audit` for administrators; the writer (AuditLog) is in the core module. */
@Module({
  controllers: [AuditController],
  providers: [AuditQuery],
})
export class AuditModule {}
