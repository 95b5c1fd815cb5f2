import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { ProviderError } from '@arbor/provider-adapters';
import { excerpt } from '@arbor/platform';
import { badRequest } from '../gateway-errors';
import type { GatewayCaller } from '../keys/key-verifier';
import { jsonb } from '../stored-responses/responses-store';
import { OwnedResource, type PassThroughKind, type ResourceKind } from './owned-resource.entity';
import { USD_COLUMN } from '../pricing/usd';

const MAX_PAGE = 100;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

// OpenAI's words for each kind in its 404 messages.
const NOUNS: Record<ResourceKind, string> = { file: 'File', batch: 'Batch', vector_store: 'vector store', assistant: 'assistant', thread: 'thread' };

/** 404 as OpenAI answers an id it does not know; also what another project's key gets. */
export function resourceNotFound(kind: ResourceKind, id: string): ProviderError {
  const message = kind === 'file' || kind === 'batch' ? `No such ${NOUNS[kind]} object: ${excerpt(id)}` : `No ${NOUNS[kind]} found with id '${excerpt(id)}'.`;
  return new ProviderError(404, 'invalid_request_error', message, `${kind}_not_found`, 'id');
}

/** An id of the gateway's own, shaped as OpenAI's (`file-…`, `batch_…`) with a marker that tells it apart. */
export function gatewayId(kind: 'file' | 'batch'): string {
  const bytes = randomBytes(24);
  let suffix = '';
  for (const byte of bytes) suffix += ID_ALPHABET[byte % ID_ALPHABET.length];
  return kind === 'file' ? `file-gw${suffix}` : `batch_gw${suffix}`;
}

/** The project whose resources a caller sees; null for the master key, which sees all. */
function ownerOf(caller: GatewayCaller): string | null {
  return caller.kind === 'master' ? null : caller.key.project;
}

interface Row {
  id: string;
  kind: ResourceKind | PassThroughKind;
  project: string | null;
  key_id: string | null;
  alias: string;
  deployment_id: string;
  upstream_id: string;
  created_at: Date;
  object: Record<string, unknown>;
  settled_at: Date | null;
  /** numeric: its exact decimal text. */
  cost_usd: string | null;
  next_poll_at: Date | null;
}

export function fromRow(row: Row): OwnedResource {
  return Object.assign(new OwnedResource(), {
    id: row.id,
    kind: row.kind,
    project: row.project,
    keyId: row.key_id,
    alias: row.alias,
    deploymentId: row.deployment_id,
    upstreamId: row.upstream_id,
    createdAt: row.created_at,
    object: row.object,
    settledAt: row.settled_at,
    costUsd: row.cost_usd === null ? null : USD_COLUMN.from(row.cost_usd),
    nextPollAt: row.next_poll_at,
  });
}

/** A new resource owned by the caller's project. */
export interface NewResource {
  id: string;
  kind: ResourceKind;
  alias: string;
  deploymentId: string;
  upstreamId: string;
  object: Record<string, unknown>;
  nextPollAt?: Date | null;
}

/**
 * Who owns which upstream resource, in PostgreSQL so that any replica serves any request: every
 * read is scoped to the caller's project (the master key sees all), so another project's id is a
 * 404 exactly as an id that never existed.
 */
@Injectable()
export class ResourceStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async add(caller: GatewayCaller, resource: NewResource): Promise<void> {
    await this.insert(this.dataSource.manager, ownerOf(caller), caller.kind === 'master' ? null : caller.key.id, resource);
  }

  private async insert(manager: EntityManager, project: string | null, keyId: string | null, resource: NewResource): Promise<void> {
    await manager.query(
      `insert into owned_resources (id, kind, project, key_id, alias, deployment_id, upstream_id, created_at, object, next_poll_at)
       values ($1, $2, $3, $4, $5, $6, $7, now(), $8, $9)
       on conflict (deployment_id, upstream_id, kind) do nothing`,
      [resource.id, resource.kind, project, keyId, resource.alias, resource.deploymentId, resource.upstreamId, jsonb(resource.object), resource.nextPollAt ?? null],
    );
  }

  async find(kind: ResourceKind, id: string, caller: GatewayCaller): Promise<OwnedResource> {
    const rows: Row[] = await this.dataSource.query('select * from owned_resources where id = $1 and kind = $2 and ($3::text is null or project is not distinct from $3)', [
      id,
      kind,
      ownerOf(caller),
    ]);
    const row = rows[0];
    if (!row) throw resourceNotFound(kind, id);
    return fromRow(row);
  }

  async byId(id: string): Promise<OwnedResource | undefined> {
    const rows: Row[] = await this.dataSource.query('select * from owned_resources where id = $1', [id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async setObject(id: string, object: Record<string, unknown>, nextPollAt?: Date | null): Promise<void> {
    if (nextPollAt === undefined) await this.dataSource.query('update owned_resources set object = $2 where id = $1', [id, jsonb(object)]);
    else await this.dataSource.query('update owned_resources set object = $2, next_poll_at = $3 where id = $1', [id, jsonb(object), nextPollAt]);
  }

  async remove(id: string): Promise<void> {
    await this.dataSource.query('delete from owned_resources where id = $1', [id]);
  }

  /**
   * The client ids of upstream file ids on a deployment; ids the gateway has not seen (a batch's
   * output file, a file an assistant wrote) become files of `owner`'s project now.
   */
  async clientFileIds(owner: OwnedResource, upstreamIds: readonly string[]): Promise<Map<string, string>> {
    if (upstreamIds.length === 0) return new Map();
    const unique = [...new Set(upstreamIds)];
    const known = await this.fileIdsOn(owner.deploymentId, unique);
    const unseen = unique.filter((upstreamId) => !known.has(upstreamId));
    if (unseen.length === 0) return known;
    for (const upstreamId of unseen) {
      const id = gatewayId('file');
      await this.insert(this.dataSource.manager, owner.project, owner.keyId, {
        id,
        kind: 'file',
        alias: owner.alias,
        deploymentId: owner.deploymentId,
        upstreamId,
        object: { id, object: 'file', purpose: 'batch_output', filename: upstreamId, bytes: null, created_at: Math.floor(Date.now() / 1000) },
      });
    }
    return this.fileIdsOn(owner.deploymentId, unique);
  }

  private async fileIdsOn(deploymentId: string, upstreamIds: readonly string[]): Promise<Map<string, string>> {
    const rows: { id: string; upstream_id: string }[] = await this.dataSource.query(
      `select id, upstream_id from owned_resources where kind = 'file' and deployment_id = $1 and upstream_id = any($2)`,
      [deploymentId, upstreamIds],
    );
    return new Map(rows.map((row) => [row.upstream_id, row.id]));
  }

  /** A page of the caller's resources of a kind, as OpenAI pages lists: `limit` (1–100, 20), `order` (desc), `after`, `before`. */
  async list(kind: ResourceKind, caller: GatewayCaller, query: URLSearchParams, filter?: { purpose?: string }): Promise<Record<string, unknown>> {
    const limit = query.get('limit') === null ? 20 : Number(query.get('limit'));
    const max = kind === 'file' ? 10_000 : MAX_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > max) throw badRequest(`limit must be a whole number from 1 to ${max}.`, 'limit');
    const order = query.get('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') throw badRequest('order must be asc or desc.', 'order');
    const after = query.get('after');
    const before = query.get('before');
    const cursor = after ?? before;
    const forward = before === null;
    // Rows after `after` in the listing order (or before `before`), by (created_at, id).
    const descending = (order === 'desc') === forward;
    const comparison = descending ? '<' : '>';
    const rows: Row[] = await this.dataSource.query(
      `select * from owned_resources r
        where kind = $1 and ($2::text is null or project is not distinct from $2)
          and ($3::text is null or object ->> 'purpose' = $3)
          and ($4::text is null or (created_at, id) ${comparison} (select created_at, id from owned_resources c where c.id = $4))
        order by created_at ${descending ? 'desc' : 'asc'}, id ${descending ? 'desc' : 'asc'}
        limit $5`,
      [kind, ownerOf(caller), filter?.purpose ?? null, cursor, limit + 1],
    );
    const page = rows.slice(0, limit);
    if (!forward) page.reverse();
    const data = page.map((row) => row.object);
    return { object: 'list', data, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null, has_more: rows.length > limit };
  }

  /**
   * Runs `settle` for a batch not settled yet, holding its row so that only one replica does;
   * the row is marked settled with the cost `settle` returns. Undefined when another replica
   * holds it or it was settled already.
   */
  async settleOnce<T extends { costUsd: number }>(id: string, settle: () => Promise<T>): Promise<T | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const rows: { id: string }[] = await manager.query(`select id from owned_resources where id = $1 and kind = 'batch' and settled_at is null for update skip locked`, [id]);
      if (rows.length === 0) return undefined;
      const settled = await settle();
      await manager.query('update owned_resources set settled_at = now(), cost_usd = $2, next_poll_at = null where id = $1', [id, USD_COLUMN.to(settled.costUsd)]);
      return settled;
    });
  }

  /**
   * Which of `upstreamIds` (objects of `kinds`, or stored responses when `responses`) the caller's
   * project made, through any route; the master key's objects are nobody else's.
   */
  async ownedUpstreamIds(caller: GatewayCaller, kinds: readonly string[], upstreamIds: readonly string[], responses: boolean): Promise<Set<string>> {
    if (upstreamIds.length === 0) return new Set();
    const project = caller.kind === 'master' ? null : caller.key.project;
    const rows: { upstream_id: string }[] = await this.dataSource.query(
      `select upstream_id from owned_resources where upstream_id = any($1) and kind = any($2) and project is not distinct from $3
       union
       select upstream_id from stored_responses where $4 and upstream_id = any($1) and project is not distinct from $3`,
      [upstreamIds, kinds, project, responses],
    );
    return new Set(rows.map((row) => row.upstream_id));
  }

  /** Objects a pass-through answer named as made now (or made with an object of the caller's), recorded as the caller's project's; an id already recorded keeps its owner. */
  async addUpstream(caller: GatewayCaller, kind: PassThroughKind, deployment: { id: string; alias: string }, upstreamIds: readonly string[]): Promise<void> {
    for (const upstreamId of new Set(upstreamIds)) {
      await this.dataSource.query(
        `insert into owned_resources (id, kind, project, key_id, alias, deployment_id, upstream_id, created_at, object)
         values ($1, $2, $3, $4, $5, $6, $7, now(), $8) on conflict do nothing`,
        [`${kind}:${upstreamId}`, kind, ownerOf(caller), caller.kind === 'master' ? null : caller.key.id, deployment.alias, deployment.id, upstreamId, jsonb({ id: upstreamId })],
      );
    }
  }

  /** An object deleted through a pass-through: its rows, under any route's kind, go. */
  async removeUpstream(kinds: readonly string[], upstreamId: string): Promise<void> {
    await this.dataSource.query('delete from owned_resources where upstream_id = $1 and kind = any($2)', [upstreamId, kinds]);
  }

  /** Running batches due for a look, claimed by this replica until `leaseMs` from now. */
  async claimDueBatches(limit: number, leaseMs: number): Promise<OwnedResource[]> {
    // TypeORM answers an UPDATE … RETURNING with [rows, count].
    const [rows] = (await this.dataSource.query(
      `update owned_resources set next_poll_at = now() + make_interval(secs => $2::float8 / 1000)
        where id in (select id from owned_resources where kind = 'batch' and next_poll_at <= now() order by next_poll_at limit $1 for update skip locked)
        returning *`,
      [limit, leaseMs],
    )) as [Row[], number];
    return rows.map(fromRow);
  }
}
