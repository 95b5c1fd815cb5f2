import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { excerpt } from '@arbor/platform';
import type { CatalogueCaller } from '../catalogue/catalogue-access';
import { ServerRegistry, VirtualServerDefinition } from '../registry/server-registry';
import { ToolCallAudit, ToolCallEvent } from './tool-call-audit';
import { ToolCallRow } from './tool-call.entity';

/** Rows are written this often, or as soon as this many wait. */
const FLUSH_EVERY_MS = 1_000;
const FLUSH_AT_ROWS = 500;
/** Rows one insert carries. */
const INSERT_AT_MOST = 1_000;
/** While the database cannot take them, rows beyond this many are dropped (and counted in the log). */
const MAX_WAITING_ROWS = 50_000;
/** A kept payload larger than this (as JSON) is replaced by its size. */
const MAX_PAYLOAD_BYTES = 64 * 1024;
const MAX_TOOL_NAME = 500;

type PendingRow = Omit<ToolCallRow, 'id'>;

// Column by column through unnest: 13 parameters whatever the rows, no per-row query building (an
// ORM insert of the batch was a tenth of a tool call's CPU). Project slugs never hold U+001F.
const APPEND_TOOL_CALLS = `
  insert into mcp_tool_calls (called_at, server_id, projects, caller_kind, caller_id, caller_name, upstream, tool, outcome, duration_ms, error_code, arguments, result)
  select called_at, server_id, coalesce(string_to_array(projects, E'\\x1f'), '{}'), caller_kind, caller_id, caller_name, upstream, tool, outcome, duration_ms, error_code,
         arguments, result
    from unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::double precision[],
                $11::integer[], $12::jsonb[], $13::jsonb[])
      as d(called_at, server_id, projects, caller_kind, caller_id, caller_name, upstream, tool, outcome, duration_ms, error_code, arguments, result)`;

/**
 * The audit of tool calls in PostgreSQL (`mcp_tool_calls`, append-only): `record` only builds the row
 * and queues it; the queue is written in one multi-row insert every second (or at 500 rows), so a
 * tool call never waits on the database. Rows queued at shutdown are written before it ends.
 */
@Injectable()
export class DatabaseToolCallAudit extends ToolCallAudit implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('ToolCallAudit');
  private queue: PendingRow[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private dropped = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly registry: ServerRegistry,
  ) {
    super();
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  // Before any module's shutdown hook, so the database is still there; again after the HTTP server
  // closed, for calls that ended meanwhile (best effort: the database may be gone by then).
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.queue.length > 0 && this.dataSource.isInitialized) await this.flush();
  }

  keepsPayloads(caller: CatalogueCaller, upstream: string): boolean {
    return this.serversOf(caller, upstream).some((server) => server.auditPayloads === true);
  }

  record(event: ToolCallEvent): void {
    if (this.queue.length >= MAX_WAITING_ROWS) {
      this.dropped += 1;
      return;
    }
    const { grant } = event.caller;
    const isKey = grant.who?.kind === 'key' || (grant.who === undefined && grant.principal.startsWith('key:'));
    const servers = this.serversOf(event.caller, event.upstream);
    this.queue.push({
      calledAt: new Date(),
      serverId: event.caller.serverId,
      projects: [...new Set(servers.map((server) => server.project))].sort(),
      callerKind: isKey ? 'key' : 'person',
      callerId: isKey ? grant.principal.replace(/^key:/, '') : grant.principal,
      callerName: grant.who?.name ?? grant.principal,
      upstream: event.upstream,
      tool: excerpt(event.tool, MAX_TOOL_NAME),
      outcome: event.outcome,
      durationMs: Math.round(event.durationMs * 1000) / 1000,
      errorCode: event.errorCode ?? null,
      arguments: event.arguments ?? null,
      result: event.result ?? null,
    });
    // Once per batch: calls during a write wait for the next one (or the timer).
    if (this.queue.length >= FLUSH_AT_ROWS && !this.flushing) void this.flush();
  }

  /** Writes what is queued (one write at a time); rows a failed write held are tried again next time. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    const rows = this.queue;
    this.queue = [];
    this.flushing = this.write(rows).finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  private async write(rows: PendingRow[]): Promise<void> {
    let written = 0;
    try {
      // In inserts of INSERT_AT_MOST rows (13 arrays each): a backlog after an outage goes as statements of bounded size.
      for (; written < rows.length; written += INSERT_AT_MOST) {
        const chunk = rows.slice(written, written + INSERT_AT_MOST);
        await this.dataSource.query(APPEND_TOOL_CALLS, [
          chunk.map((row) => row.calledAt.toISOString()),
          chunk.map((row) => row.serverId),
          chunk.map((row) => row.projects.join('\u001f')),
          chunk.map((row) => row.callerKind),
          chunk.map((row) => row.callerId),
          chunk.map((row) => row.callerName),
          chunk.map((row) => row.upstream),
          chunk.map((row) => row.tool),
          chunk.map((row) => row.outcome),
          chunk.map((row) => row.durationMs),
          chunk.map((row) => row.errorCode),
          chunk.map((row) => boundedJson(row.arguments)),
          chunk.map((row) => boundedJson(row.result)),
        ]);
      }
      if (this.dropped > 0) {
        this.logger.error(`${this.dropped} tool calls were not recorded in the audit while the database could not take them`);
        this.dropped = 0;
      }
    } catch (error) {
      const left = rows.slice(written);
      this.logger.warn(`writing ${left.length} tool calls to the audit failed, trying again: ${(error as Error).message}`);
      this.queue = [...left, ...this.queue].slice(0, MAX_WAITING_ROWS);
    }
  }

  /** The servers a call counts for: its own, or on `/mcp` those of the grant that select the upstream. */
  private serversOf(caller: CatalogueCaller, upstream: string | null): VirtualServerDefinition[] {
    if (caller.serverId !== null) {
      const server = this.registry.server(caller.serverId);
      return server ? [server] : [];
    }
    return caller.grant.servers.flatMap((id) => {
      const server = this.registry.server(id);
      if (!server) return [];
      return upstream === null || server.selections.some((selection) => selection.upstream === upstream) ? [server] : [];
    });
  }
}

/** A kept payload as the jsonb column's text: null when none, its size in place of it when larger than MAX_PAYLOAD_BYTES. */
function boundedJson(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  const json = JSON.stringify(payload);
  const bytes = Buffer.byteLength(json);
  return bytes > MAX_PAYLOAD_BYTES ? JSON.stringify({ arbor_truncated: true, bytes }) : json;
}
