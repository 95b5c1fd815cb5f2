import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@arbor/auth';
import { AdministrationApi } from '../openapi/administration-api.decorator';
import { DeliveryIdParam } from './delivery-id.pipe';
import { ListSyncDeliveriesQuery } from './dto/list-sync-deliveries.query';
import { SyncDeliveryListResponse, SyncDeliveryResponse, SyncProductSummary } from './dto/sync-delivery.response';
import { SyncDeliveriesService } from './sync-deliveries.service';

@ApiTags('sync')
@AdministrationApi()
@Controller('api/v1/sync/deliveries')
export class SyncDeliveriesController {
  constructor(private readonly deliveries: SyncDeliveriesService) {}

  @Get()
  @ApiOperation({ summary: 'Project-sync deliveries not yet answered with 2xx (pending), or only those already tried (failing)' })
  @ApiOkResponse({ type: SyncDeliveryListResponse, description: 'A page of deliveries, oldest first, and pending/failing counts by product.' })
  @ApiBadRequestResponse({ description: '`invalid_request`: an unknown state, a bad product key, limit or after_id.' })
  async list(@Query() query: ListSyncDeliveriesQuery): Promise<SyncDeliveryListResponse> {
    const now = new Date();
    const page = await this.deliveries.list({ view: query.state, product: query.product, limit: query.limit, afterId: query.after_id });
    return {
      state: query.state,
      deliveries: page.deliveries.map((delivery) => SyncDeliveryResponse.of(delivery, now)),
      next_after_id: page.nextAfterId,
      summary: page.summary.map((product) => SyncProductSummary.of(product, now)),
    };
  }

  @Post(':id/retry')
  @HttpCode(200)
  @ApiParam({ name: 'id', description: 'Delivery id' })
  @ApiOperation({ summary: 'Make a pending delivery due now and wake the dispatcher (audited as sync_delivery.retried)' })
  @ApiOkResponse({ type: SyncDeliveryResponse, description: 'The delivery, due now; its attempts and last error stay until the next attempt.' })
  @ApiBadRequestResponse({ description: '`invalid_request`: the id is not a delivery id.' })
  @ApiNotFoundResponse({ description: '`sync_delivery_not_found`.' })
  @ApiConflictResponse({ description: '`sync_delivery_delivered`: already delivered; `sync_delivery_in_flight`: a dispatcher is sending it right now.' })
  async retry(@CurrentPrincipal() principal: Principal, @Param('id', DeliveryIdParam) id: string): Promise<SyncDeliveryResponse> {
    return SyncDeliveryResponse.of(await this.deliveries.retryNow(principal, id), new Date());
  }
}
