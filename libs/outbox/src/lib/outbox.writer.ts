import { currentTraceparent } from '@arbor/observability';
import { EntityManager } from 'typeorm';
import { OutboxEvent } from './outbox-event.entity';

/** The channel a dispatcher LISTENs on; NOTIFY inside the transaction is delivered at commit. */
export const OUTBOX_CHANNEL = 'arbor_outbox';

export const PROJECTS_CHANGED = 'projects.changed';

/**
 * Writes outbox rows with the caller's EntityManager, so a row commits or rolls back with the
 * change it announces. Never call it outside a transaction.
 */
export class OutboxWriter {
  static async projectsChanged(manager: EntityManager, slugs: string[]): Promise<void> {
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error('outbox rows are written inside the transaction of the change they announce');
    }
    const unique = [...new Set(slugs)].sort();
    if (unique.length === 0) return;
    await manager.insert(OutboxEvent, {
      topic: PROJECTS_CHANGED,
      payload: { slugs: unique },
      traceparent: currentTraceparent(),
    });
    await manager.query('select pg_notify($1, $2)', [OUTBOX_CHANNEL, PROJECTS_CHANGED]);
  }
}
