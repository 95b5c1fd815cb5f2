import { ApiError, excerpt } from '@arbor/platform';

export class SyncDeliveryNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'sync_delivery_not_found', `No sync delivery ${excerpt(id)}.`);
  }
}

export class SyncDeliveryAlreadyDelivered extends ApiError {
  constructor(id: string, deliveredAt: Date | null) {
    const at = deliveredAt?.toISOString() ?? null;
    super(409, 'sync_delivery_delivered', `Sync delivery ${id} was delivered${at ? ` at ${at}` : ''}; there is nothing to retry.`, { delivered_at: at });
  }
}

/** A dispatcher is sending it now; moving its due time would end that attempt's lease and let another replica send it too. */
export class SyncDeliveryInFlight extends ApiError {
  constructor(id: string, leaseEndsAt: Date) {
    const at = leaseEndsAt.toISOString();
    super(409, 'sync_delivery_in_flight', `Sync delivery ${id} is being sent right now; look again after ${at}.`, { lease_ends_at: at });
  }
}
