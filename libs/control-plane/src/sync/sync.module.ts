import { Module } from '@nestjs/common';
import { SyncDeliveriesController } from './sync-deliveries.controller';
import { SyncDeliveriesService } from './sync-deliveries.service';

/** The operators' side of project sync (`/api/v1/sync/deliveries`); the dispatcher itself is another service. */
@Module({
  controllers: [SyncDeliveriesController],
  providers: [SyncDeliveriesService],
})
export class SyncModule {}
