import { Module } from '@nestjs/common';
import { SpendController } from './spend.controller';
import { SpendRecorder } from './spend-recorder';
import { SpendReports } from './spend-report';

/** Spend recorded off the request path, and its reports. */
@Module({
  controllers: [SpendController],
  providers: [SpendRecorder, SpendReports],
  exports: [SpendRecorder, SpendReports],
})
export class SpendModule {}
