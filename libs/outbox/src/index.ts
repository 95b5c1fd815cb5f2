export * from './lib/outbox-event.entity';
export * from './lib/outbox.writer';
export * from './migrations/1763700000000-CreateOutboxEvents';

import { OutboxEvent } from './lib/outbox-event.entity';
import { CreateOutboxEvents1763700000000 } from './migrations/1763700000000-CreateOutboxEvents';

/** What a service that owns the outbox adds to its entities and migrations. */
export const OUTBOX_ENTITIES = [OutboxEvent];
export const OUTBOX_MIGRATIONS = [CreateOutboxEvents1763700000000];
