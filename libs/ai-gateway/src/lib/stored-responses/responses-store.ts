import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { errorFields } from '@arbor/observability';
import { ProviderError } from '@arbor/provider-adapters';
import { asynchronousCommitPool, excerpt, textProblem } from '@arbor/platform';
import { badRequest } from '../gateway-errors';
import { DataSource } from 'typeorm';
import { DEFAULT_RESPONSES_RETENTION_MS, GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { GatewayCaller } from '../keys/key-verifier';
import { StoredResponse } from './stored-response.entity';

// Expired responses are deleted in the background, this often and this many at a time.
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_BATCH = 1000;
/** The statuses of a background response still running. */
export const RUNNING = ['queued', 'in_progress'];

// The JSON escapes of what jsonb cannot hold: the NUL character, and a lone UTF-16 surrogate
// (JSON.stringify escapes only lone ones); after an even number of backslashes, so not an escaped
// backslash followed by "u0000".
const UNSTORABLE_ESCAPE = /(?<=(?:^|[^\\])(?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;

/**
 * A value as JSON text PostgreSQL's jsonb takes: jsonb cannot hold the NUL character or a lone
 * surrogate, which a prompt may carry, so the stored copy has U+FFFD in their place (what the
 * client got is unchanged).
 */
export function jsonb(value: unknown): string {
  return JSON.stringify(value).replace(UNSTORABLE_ESCAPE, '\\ufffd');
}

/** A stored_responses row as the driver reads it. */
interface StoredRow {
  id: string;
  project: string | null;
  key_id: string | null;
  created_at: Date;
  expires_at: Date;
  status: string;
  deployment_id: string | null;
  upstream_id: string | null;
  previous_response_id: string | null;
  input: Record<string, unknown>[];
  response: Record<string, unknown>;
  background: boolean;
}

function fromRow(row: StoredRow): StoredResponse {
  return Object.assign(new StoredResponse(), {
    id: row.id,
    project: row.project,
    keyId: row.key_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    status: row.status,
    deploymentId: row.deployment_id,
    upstreamId: row.upstream_id,
    previousResponseId: row.previous_response_id,
    input: row.input,
    response: row.response,
    background: row.background,
  });
}

/** One event of a background response's stream, kept for readers that come (back) later. */
export interface LoggedEvent {
  sequenceNumber: number;
  event: Record<string, unknown>;
}

/** The project whose responses a caller sees; undefined for the master key, which sees all. */
function ownerOf(caller: GatewayCaller): string | undefined {
  return caller.kind === 'master' ? undefined : caller.key.project;
}

/** An item of a stored response, found by its id, with what says where it was made. */
export interface ReferencedItem {
  item: Record<string, unknown>;
  deploymentId: string | null;
  upstreamId: string | null;
}

/** An id a client sent, checked before it reaches a query: storable text, or 400 naming the field. */
export function checkedId(id: string, field: string): string {
  const problem = textProblem(id);
  if (problem) throw badRequest(`${field} ${problem}.`, field);
  return id;
}

export const itemNotFound = (id: string) =>
  new ProviderError(404, 'invalid_request_error', `Item with id '${excerpt(id)}' not found.`, 'item_not_found', 'input');

export const responseNotFound = (id: string) =>
  new ProviderError(404, 'invalid_request_error', `Response with id '${excerpt(id)}' not found.`, 'response_not_found', 'response_id');

/**
 * Stored responses in PostgreSQL, each visible only to keys of the project that created it (a
 * key of another project gets 404, as for an id that never existed). A conversation's earlier
 * turns are read in one indexed recursive query. Expired ones are pruned in the background.
 */
@Injectable()
export class ResponsesStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ai-gateway');
  private pruning: NodeJS.Timeout | undefined;
  /**
   * Where new responses are written: committed asynchronously, so the answer's last byte waits for
   * the row to be visible to every replica, not for its WAL flush (most of an insert's time).
   */
  private writer: Promise<DataSource> | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  onModuleInit(): void {
    this.writer = asynchronousCommitPool(this.dataSource);
    this.writer.catch((error: unknown) => this.logger.warn('stored responses are written with synchronous commits: the second pool could not connect', { err: errorFields(error) }));
    void this.prune();
    this.pruning = setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.pruning);
    await (await this.writer?.catch(() => undefined))?.destroy();
  }

  /** A new record owned by the caller's project, kept for the configured retention. */
  record(caller: GatewayCaller, fields: Pick<StoredResponse, 'id' | 'status' | 'deploymentId' | 'upstreamId' | 'previousResponseId' | 'input' | 'response' | 'background'>): StoredResponse {
    const now = Date.now();
    return Object.assign(new StoredResponse(), {
      ...fields,
      project: caller.kind === 'master' ? null : caller.key.project,
      keyId: caller.kind === 'master' ? null : caller.key.id,
      createdAt: new Date(now),
      expiresAt: new Date(now + (this.settings.responsesRetentionMs ?? DEFAULT_RESPONSES_RETENTION_MS)),
    });
  }

  async save(record: StoredResponse): Promise<void> {
    const writer = (await this.writer?.catch(() => undefined)) ?? this.dataSource;
    await writer.query(
      `insert into stored_responses (id, project, key_id, created_at, expires_at, status, deployment_id, upstream_id, previous_response_id, input, response, background)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       on conflict (id) do update set status = excluded.status, deployment_id = excluded.deployment_id, upstream_id = excluded.upstream_id, response = excluded.response`,
      [
        record.id, record.project, record.keyId, record.createdAt, record.expiresAt, record.status, record.deploymentId, record.upstreamId,
        record.previousResponseId, jsonb(record.input), jsonb(record.response), record.background,
      ],
    );
  }

  async find(id: string, caller: GatewayCaller): Promise<StoredResponse> {
    const owner = ownerOf(caller);
    const found = await this.dataSource.getRepository(StoredResponse).findOneBy(owner === undefined ? { id } : { id, project: owner });
    if (!found || found.expiresAt.getTime() <= Date.now()) throw responseNotFound(id);
    return found;
  }

  /** The response `id` and every turn before it, oldest first; 404 when `id` is not the caller's. */
  async conversation(id: string, caller: GatewayCaller): Promise<StoredResponse[]> {
    const owner = ownerOf(caller) ?? null;
    const rows: StoredRow[] = await this.dataSource.query(
      `with recursive chain as (
         select r.*, 0 as depth from stored_responses r where r.id = $1 and ($2::text is null or r.project is not distinct from $2) and r.expires_at > now()
         union all
         select r.*, c.depth + 1 from stored_responses r join chain c on r.id = c.previous_response_id
          where (r.project is not distinct from c.project) and c.depth < 10000
       )
       select * from chain order by depth desc`,
      [id, owner],
    );
    if (rows.length === 0) throw responseNotFound(id);
    return rows.map(fromRow);
  }

  /**
   * The items of the caller's stored responses (output or input) with these ids, each with the
   * response that holds it; ids not found are missing from the answer.
   */
  async items(ids: readonly string[], caller: GatewayCaller): Promise<Map<string, ReferencedItem>> {
    const owner = ownerOf(caller) ?? null;
    const probes = ids.map((id) => JSON.stringify([{ id }]));
    const rows: { item: Record<string, unknown>; deployment_id: string | null; upstream_id: string | null }[] = await this.dataSource.query(
      `select item, r.deployment_id, r.upstream_id from stored_responses r
         cross join lateral jsonb_array_elements(case when r.response -> 'output' @> any($2::jsonb[]) then r.response -> 'output' else r.input end) item
        where (r.response -> 'output' @> any($2::jsonb[]) or r.input @> any($2::jsonb[]))
          and ($3::text is null or r.project is not distinct from $3) and r.expires_at > now() and item ->> 'id' = any($1)`,
      [ids, probes, owner],
    );
    return new Map(rows.map((row) => [String(row.item['id']), { item: row.item, deploymentId: row.deployment_id, upstreamId: row.upstream_id }]));
  }

  async delete(id: string, caller: GatewayCaller): Promise<void> {
    const owner = ownerOf(caller) ?? null;
    const [, deleted] = (await this.dataSource.query('delete from stored_responses where id = $1 and ($2::text is null or project is not distinct from $2)', [id, owner])) as [unknown, number];
    if (!deleted) throw responseNotFound(id);
  }

  /** Sets the state of a background response still running; false when it was cancelled (or ended) meanwhile. */
  async settle(id: string, status: string, response: Record<string, unknown>, fields: Partial<Pick<StoredResponse, 'deploymentId' | 'upstreamId'>> = {}): Promise<boolean> {
    const [, updated] = (await this.dataSource.query(
      `update stored_responses set status = $2, response = $3, deployment_id = coalesce($4, deployment_id), upstream_id = coalesce($5, upstream_id)
        where id = $1 and status = any($6)`,
      [id, status, jsonb(response), fields.deploymentId ?? null, fields.upstreamId ?? null, RUNNING],
    )) as [unknown, number];
    return updated > 0;
  }

  /** The status of a response, whoever owns it; undefined when there is none. */
  async statusOf(id: string): Promise<string | undefined> {
    const rows: { status: string }[] = await this.dataSource.query('select status from stored_responses where id = $1', [id]);
    return rows[0]?.status;
  }

  /** Adds events to a background response's stream log (an event already there stays as it is). */
  async appendEvents(id: string, events: readonly LoggedEvent[]): Promise<void> {
    const writer = (await this.writer?.catch(() => undefined)) ?? this.dataSource;
    await writer.query(
      `insert into stored_response_events (response_id, sequence_number, event)
       select $1, sequence_number, event from unnest($2::int[], $3::jsonb[]) as logged(sequence_number, event)
       on conflict do nothing`,
      [id, events.map((logged) => logged.sequenceNumber), events.map((logged) => jsonb(logged.event))],
    );
  }

  /** A background response's logged events after the sequence number `after`, in order. */
  async eventsAfter(id: string, after: number): Promise<LoggedEvent[]> {
    const rows: { sequence_number: number; event: Record<string, unknown> }[] = await this.dataSource.query(
      'select sequence_number, event from stored_response_events where response_id = $1 and sequence_number > $2 order by sequence_number limit 1000',
      [id, after],
    );
    return rows.map((row) => ({ sequenceNumber: row.sequence_number, event: row.event }));
  }

  /** Of these running background responses, the ones cancelled since (by any replica). */
  async cancelledAmong(ids: readonly string[]): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(`select id from stored_responses where id = any($1) and status = 'cancelled'`, [ids]);
    return rows.map((row) => row.id);
  }

  private async prune(): Promise<void> {
    try {
      for (;;) {
        const [, deleted] = (await this.dataSource.query(
          'delete from stored_responses where id in (select id from stored_responses where expires_at <= now() limit $1)',
          [PRUNE_BATCH],
        )) as [unknown, number];
        if (deleted < PRUNE_BATCH) return;
      }
    } catch (error) {
      this.logger.warn('expired stored responses could not be pruned', { err: errorFields(error) });
    }
  }
}
