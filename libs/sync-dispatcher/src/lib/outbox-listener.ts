import { Logger } from '@nestjs/common';
import { OUTBOX_CHANNEL } from '@arbor/outbox';
import { Client } from 'pg';
import { Clock } from './clock';

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;

/**
 * `LISTEN arbor_outbox` on a connection of its own (a pooled one would be handed to others),
 * reconnecting with back-off when it is lost. `onNotify` is called for every notification, and
 * after each (re)connect, since notifications sent while disconnected are gone.
 */
export class OutboxListener {
  private readonly logger = new Logger('sync');
  private client?: Client;
  private stopped = false;
  private failures = 0;
  private cancelReconnect?: () => void;

  constructor(
    private readonly databaseUrl: string,
    private readonly clock: Clock,
    private readonly onNotify: () => void,
  ) {}

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelReconnect?.();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl, application_name: 'sync-dispatcher-listen', keepAlive: true });
    this.client = client;
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.failures += 1;
      const delay = Math.min(RECONNECT_MIN_MS * 2 ** (this.failures - 1), RECONNECT_MAX_MS);
      this.logger.warn('lost the LISTEN connection; polling until it is back', { error: error?.message ?? 'connection ended', retry_in_ms: delay });
      this.cancelReconnect = this.clock.setTimer(delay, () => void this.connect());
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', () => this.onNotify());
    try {
      await client.connect();
      await client.query(`listen ${OUTBOX_CHANNEL}`);
      if (this.stopped) return void client.end().catch(() => undefined);
      if (this.failures > 0) this.logger.log('LISTEN connection back');
      this.failures = 0;
      this.onNotify();
    } catch (error) {
      onLost(error as Error);
    }
  }
}
