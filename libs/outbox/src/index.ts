export * from './lib/outbox-event.entity';
export * from './lib/outbox.writer';
export * from './lib/sync-delivery.entity';
export * from './lib/sync-delivery.store';
export * from './migrations/1763700000000-CreateOutboxEvents';
export * from './migrations/1763800000000-AddOutboxDispatchedAt';
export * from './migrations/1763800000100-CreateSyncDeliveries';

import { OutboxEvent } from './lib/outbox-event.entity';
import { SyncDelivery } from './lib/sync-delivery.entity';
import { CreateOutboxEvents1763700000000 } from './migrations/1763700000000-CreateOutboxEvents';
import { AddOutboxDispatchedAt1763800000000 } from './migrations/1763800000000-AddOutboxDispatchedAt';
import { CreateSyncDeliveries1763800000100 } from './migrations/1763800000100-CreateSyncDeliveries';

/**
 * What a service that owns the outbox adds to its entities and migrations: the control plane
 * (which writes events) and the sync dispatcher (which delivers them) both run these, under the
 * same advisory lock, so whichever starts first creates the tables.
 */
export const OUTBOX_ENTITIES = [OutboxEvent, SyncDelivery];
export const OUTBOX_MIGRATIONS = [CreateOutboxEvents1763700000000, AddOutboxDispatchedAt1763800000000, CreateSyncDeliveries1763800000100];
