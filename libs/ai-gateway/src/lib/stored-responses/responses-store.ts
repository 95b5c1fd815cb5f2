import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { errorFields } from '@arbor/observability';
import { itemId, ProviderError } from '@arbor/provider-adapters';
import { asynchronousCommitPool, excerpt, textProblem } from '@arbor/platform';
import { badRequest } from '../gateway-errors';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { DEFAULT_RESPONSES_RETENTION_MS, GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { GatewayCaller } from '../keys/key-verifier';
import { StoredResponse } from './stored-response.entity';

// Expired responses are deleted in the background, this often and this many at a time.
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_BATCH = 1000;
/** The statuses of a background response still running. */
export const RUNNING = ['queued', 'in_progress'];
// A reader that finds a response being answered (reserved, not yet completed) waits for it this
// long at most, looking again after pauses growing from the first to the last.
const SETTLE_WAIT_MS = 5_000;
// An item reference not found waits less: it waits for any response of the project being answered
// (which holds what items is not known until it is completed), spares reserved ahead among them.
const ITEMS_WAIT_MS = 1_000;
const FIRST_LOOK_MS = 2;
const LAST_LOOK_MS = 100;
// Responses reserved ahead, per project: at most this many kept (one per call running at once, in
// a steady state), given out for this long, and expiring (pruned like any other) a while after.
const SPARES_PER_PROJECT = 64;
const SPARE_USABLE_MS = 50 * 60_000;
const SPARE_LIFETIME = '1 hour';
// Completions written after their answers, at most this many at once; beyond, an answer waits for
// its own (the database is behind: its clients slow down rather than its queue growing).
const COMPLETIONS_BEHIND = 32;

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

export const itemNotFound = (id: string) => new ProviderError(404, 'invalid_request_error', `Item with id '${excerpt(id)}' not found.`, 'item_not_found', 'input');

export const responseNotFound = (id: string) =>
  new ProviderError(404, 'invalid_request_error', `Response with id '${excerpt(id)}' not found.`, 'response_not_found', 'response_id');

export const responseInProgress = (id: string) =>
  new ProviderError(
    400,
    'invalid_request_error',
    `Response with id '${excerpt(id)}' is still in progress: continue from it once it has completed.`,
    'response_in_progress',
    'previous_response_id',
  );

/**
 * A response being answered (or reserved ahead, not yet given out): completed right after its
 * answer leaves (a background response's running states are its own: it is read as it is).
 */
function answering(row: { status: string; background: boolean }): boolean {
  return !row.background && row.status === 'in_progress';
}

/**
 * Stored responses in PostgreSQL, each visible only to keys of the project that created it (a
 * key of another project gets 404, as for an id that never existed). A conversation's earlier
 * turns are read in one indexed recursive query. Expired ones are pruned in the background.
 *
 * A foreground response is written in two steps, neither of which its client waits for: reserved
 * (a row in progress) before its answer's last byte leaves, so that it exists on every replica, and
 * completed (its input and output) right after. The reservation is usually made ahead: each
 * completion reserves a spare for the project's next call in the same statement, so a call takes
 * one already written and its upstream does not compete with a database write. A reader that finds
 * a response reserved waits for its completion, so that a next turn, a retrieval or an item
 * reference sent the moment the answer arrived, to any replica, sees the whole response.
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
  /** Completions being written. */
  private completing = 0;
  /** Responses reserved ahead by this process, by project ('' for the master key), the newest last. */
  private readonly spares = new Map<string, { id: string; reservedAt: number }[]>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  onModuleInit(): void {
    this.writer = asynchronousCommitPool(this.dataSource);
    this.writer.catch((error: unknown) =>
      this.logger.warn('stored responses are written with synchronous commits: the second pool could not connect', { err: errorFields(error) }),
    );
    void this.prune();
    this.pruning = setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.pruning);
    // Spares left behind would expire on their own; a process that stops cleanly removes its own.
    const spares = [...this.spares.values()].flat().map((spare) => spare.id);
    this.spares.clear();
    if (spares.length > 0) await this.write(`delete from stored_responses where id = any($1) and status = 'in_progress' and response = '{}'`, [spares]).catch(() => undefined);
    await (await this.writer?.catch(() => undefined))?.destroy();
  }

  /** A new record owned by the caller's project, kept for the configured retention. */
  record(
    caller: GatewayCaller,
    fields: Pick<StoredResponse, 'id' | 'status' | 'deploymentId' | 'upstreamId' | 'previousResponseId' | 'input' | 'response' | 'background'>,
  ): StoredResponse {
    const now = Date.now();
    return Object.assign(new StoredResponse(), {
      ...fields,
      project: caller.kind === 'master' ? null : caller.key.project,
      keyId: caller.kind === 'master' ? null : caller.key.id,
      createdAt: new Date(now),
      expiresAt: new Date(now + (this.settings.responsesRetentionMs ?? DEFAULT_RESPONSES_RETENTION_MS)),
    });
  }

  /**
   * A new stored response for the caller, in progress, and its reservation: one reserved ahead
   * when there is one (written already: nothing to wait for), else written now with a spare for
   * the next call. Either way, it exists on every replica once `reserved` has resolved.
   */
  open(caller: GatewayCaller, fields: Pick<StoredResponse, 'previousResponseId' | 'input'>): { record: StoredResponse; reserved: Promise<void> } {
    const project = caller.kind === 'master' ? null : caller.key.project;
    const spare = this.takeSpare(project);
    const record = this.record(caller, { ...fields, id: spare ?? itemId('resp'), status: 'in_progress', deploymentId: null, upstreamId: null, response: {}, background: false });
    if (spare) return { record, reserved: Promise.resolve() };
    const ahead = itemId('resp');
    const reserved = this.write(
      `insert into stored_responses (id, project, key_id, created_at, expires_at, status, previous_response_id, input, response, background)
       values ($1, $2, $3, $4, $4::timestamptz + interval '${SPARE_LIFETIME}', 'in_progress', null, '[]', '{}', false), ($5, $2, null, now(), now() + interval '${SPARE_LIFETIME}', 'in_progress', null, '[]', '{}', false)`,
      [record.id, project, record.keyId, record.createdAt, ahead],
    ).then(() => this.addSpare(project, ahead));
    return { record, reserved };
  }

  /**
   * Completes a response `open` reserved, with its input and answer (unless it was deleted
   * meanwhile), and reserves a spare for a later call of the project in the same statement.
   */
  async complete(record: StoredResponse): Promise<void> {
    this.completing++;
    try {
      await this.completeNow(record);
    } finally {
      this.completing--;
    }
  }

  /** Whether so many completions are being written that the next answer should wait for its own. */
  get behind(): boolean {
    return this.completing >= COMPLETIONS_BEHIND;
  }

  private async completeNow(record: StoredResponse): Promise<void> {
    const spared = (this.spares.get(record.project ?? '')?.length ?? 0) < SPARES_PER_PROJECT;
    const ahead = itemId('resp');
    const completion = `update stored_responses set key_id = $2, created_at = $3, expires_at = $4, status = $5, deployment_id = $6, upstream_id = $7, previous_response_id = $8, input = $9, response = $10 where id = $1`;
    await this.write(
      spared
        ? `with completed as (${completion}) insert into stored_responses (id, project, created_at, expires_at, status, input, response, background)
           values ($11, $12, now(), now() + interval '${SPARE_LIFETIME}', 'in_progress', '[]', '{}', false)`
        : completion,
      [
        record.id,
        record.keyId,
        record.createdAt,
        record.expiresAt,
        record.status,
        record.deploymentId,
        record.upstreamId,
        record.previousResponseId,
        jsonb(record.input),
        jsonb(record.response),
        ...(spared ? [ahead, record.project] : []),
      ],
    );
    if (spared) this.addSpare(record.project, ahead);
  }

  /** Removes a response `open` reserved whose call ended without an answer (its client got an error instead). */
  async forget(id: string): Promise<void> {
    await this.write(`delete from stored_responses where id = $1 and status = 'in_progress' and not background`, [id]);
  }

  /** A response of the project reserved ahead, still usable, taken from the spares; undefined when there is none. */
  private takeSpare(project: string | null): string | undefined {
    const spares = this.spares.get(project ?? '');
    for (let spare = spares?.pop(); spare; spare = spares?.pop()) {
      if (Date.now() - spare.reservedAt < SPARE_USABLE_MS) return spare.id;
    }
    return undefined;
  }

  private addSpare(project: string | null, id: string): void {
    const key = project ?? '';
    const spares = this.spares.get(key) ?? [];
    spares.push({ id, reservedAt: Date.now() });
    this.spares.set(key, spares);
  }

  /** A write through the asynchronously committing pool (the main one when it could not connect). */
  private async write(sql: string, parameters: unknown[]): Promise<void> {
    const writer = (await this.writer?.catch(() => undefined)) ?? this.dataSource;
    await writer.query(sql, parameters);
  }

  async save(record: StoredResponse): Promise<void> {
    const writer = (await this.writer?.catch(() => undefined)) ?? this.dataSource;
    await writer.query(
      `insert into stored_responses (id, project, key_id, created_at, expires_at, status, deployment_id, upstream_id, previous_response_id, input, response, background)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       on conflict (id) do update set status = excluded.status, deployment_id = excluded.deployment_id, upstream_id = excluded.upstream_id, response = excluded.response`,
      [
        record.id,
        record.project,
        record.keyId,
        record.createdAt,
        record.expiresAt,
        record.status,
        record.deploymentId,
        record.upstreamId,
        record.previousResponseId,
        jsonb(record.input),
        jsonb(record.response),
        record.background,
      ],
    );
  }

  /** The caller's response `id`, once answered (a response still being answered after the wait is read as it is: in progress). */
  async find(id: string, caller: GatewayCaller): Promise<StoredResponse> {
    const owner = ownerOf(caller);
    const read = async () => {
      const found = await this.dataSource.getRepository(StoredResponse).findOneBy(owner === undefined ? { id } : { id, project: owner });
      if (!found || found.expiresAt.getTime() <= Date.now()) throw responseNotFound(id);
      return found;
    };
    const found = await this.settled(read, async (found) => answering(found));
    // Still being answered after the wait: what is known of it so far.
    if (answering(found) && found.response['object'] === undefined)
      found.response = { id, object: 'response', created_at: Math.floor(found.createdAt.getTime() / 1000), status: 'in_progress', output: [] };
    return found;
  }

  /**
   * The response `id` and every turn before it, oldest first; 404 when `id` is not the caller's,
   * 400 when one of them is still being answered after the wait.
   */
  async conversation(id: string, caller: GatewayCaller): Promise<StoredResponse[]> {
    const owner = ownerOf(caller) ?? null;
    const read = async () => {
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
      return rows;
    };
    const rows = await this.settled(read, async (chain) => chain.some(answering));
    if (rows.length === 0) throw responseNotFound(id);
    const unfinished = rows.find(answering);
    if (unfinished) throw responseInProgress(unfinished.id);
    return rows.map(fromRow);
  }

  /**
   * The items of the caller's stored responses (output or input) with these ids, each with the
   * response that holds it; ids not found are missing from the answer (after waiting for the
   * caller's responses being answered, whose output may hold them).
   */
  async items(ids: readonly string[], caller: GatewayCaller): Promise<Map<string, ReferencedItem>> {
    const owner = ownerOf(caller) ?? null;
    const probes = ids.map((id) => JSON.stringify([{ id }]));
    const read = async () => {
      const rows: { item: Record<string, unknown>; deployment_id: string | null; upstream_id: string | null }[] = await this.dataSource.query(
        `select item, r.deployment_id, r.upstream_id from stored_responses r
           cross join lateral jsonb_array_elements(case when r.response -> 'output' @> any($2::jsonb[]) then r.response -> 'output' else r.input end) item
          where (r.response -> 'output' @> any($2::jsonb[]) or r.input @> any($2::jsonb[]))
            and ($3::text is null or r.project is not distinct from $3) and r.expires_at > now() and item ->> 'id' = any($1)`,
        [ids, probes, owner],
      );
      return new Map(rows.map((row) => [String(row.item['id']), { item: row.item, deploymentId: row.deployment_id, upstreamId: row.upstream_id }]));
    };
    return this.settled(read, async (found) => found.size < new Set(ids).size && (await this.answeringFor(owner)), ITEMS_WAIT_MS);
  }

  /** Whether a response of the project (any, for the master key) is being answered. */
  private async answeringFor(owner: string | null): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `select 1 from stored_responses where status = 'in_progress' and not background and ($1::text is null or project is not distinct from $1) and expires_at > now() limit 1`,
      [owner],
    );
    return rows.length > 0;
  }

  /** What `read` reads, read again while `pending` says it waits for a response being answered, for at most `wait` ms. */
  private async settled<T>(read: () => Promise<T>, pending: (value: T) => Promise<boolean>, wait = SETTLE_WAIT_MS): Promise<T> {
    const deadline = Date.now() + wait;
    let value = await read();
    for (let pause = FIRST_LOOK_MS; Date.now() < deadline && (await pending(value)); pause = Math.min(pause * 2, LAST_LOOK_MS)) {
      await sleep(pause);
      value = await read();
    }
    return value;
  }

  async delete(id: string, caller: GatewayCaller): Promise<void> {
    const owner = ownerOf(caller) ?? null;
    const [, deleted] = (await this.dataSource.query('delete from stored_responses where id = $1 and ($2::text is null or project is not distinct from $2)', [id, owner])) as [
      unknown,
      number,
    ];
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
        const [, deleted] = (await this.dataSource.query('delete from stored_responses where id in (select id from stored_responses where expires_at <= now() limit $1)', [
          PRUNE_BATCH,
        ])) as [unknown, number];
        if (deleted < PRUNE_BATCH) return;
      }
    } catch (error) {
      this.logger.warn('expired stored responses could not be pruned', { err: errorFields(error) });
    }
  }
}
