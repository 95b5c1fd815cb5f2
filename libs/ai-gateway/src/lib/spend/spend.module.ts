import { Module } from '@nestjs/common';
import { SpendController } from './spend.controller';
import { CallRecords } from './call-records';
import { SpendRecorder } from './spend-recorder';
import { SpendReports } from './spend-report';

/** Spend recorded off the request path, and its reports. */
@Module({
  controllers: [SpendController],
  providers: [SpendRecorder, SpendReports, CallRecords],
  exports: [SpendRecorder, SpendReports, CallRecords],
})
export class SpendModule {}
