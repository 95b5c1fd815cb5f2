import { Injectable } from '@nestjs/common';
import { excerpt } from '@arbor/platform';
import { ProviderError, providerAdapters, type PassThroughApi, type ResourceCollection } from '@arbor/provider-adapters';
import type { GatewayCaller } from '../keys/key-verifier';
import { checkedId } from '../stored-responses/responses-store';
import { ResourceStore } from './resource-store';

/** A kind of object as every route records it: its vendors' kinds (`openai.file`, `anthropic.file`) and the native routes' (`file`). */
interface KindEverywhere {
  kinds: string[];
  /** Whose 404 a missing one gets. */
  collection: ResourceCollection;
}

/**
 * Objects named by the upstream's ids — in a pass-through path, or in a request body
 * (`file_id`, `conversation`, `assistant_id`, `vector_store_ids`, `previous_response_id`) — must
 * be the caller's project's, whichever route made them (owned_resources, stored_responses): else
 * the vendor's 404, as for an id that never existed. The master key may name any.
 */
@Injectable()
export class ObjectReferences {
  // For the gateway's own model calls: every vendor's reference fields, each kind under all its names.
  private readonly fields: Record<string, string> = {};
  private readonly everywhere = new Map<string, KindEverywhere>();

  constructor(private readonly store: ResourceStore) {
    for (const adapter of providerAdapters()) {
      const api = adapter.passThrough;
      if (!api) continue;
      for (const [field, kind] of Object.entries(api.resources.references)) {
        const collection = api.resources.collections.find((candidate) => candidate.kind === kind);
        // The gateway's own /v1/responses knows stored responses by its ids, and checks them itself.
        if (!collection || collection.nativeKind === 'response') continue;
        this.fields[field] = kind;
        const known = this.everywhere.get(kind) ?? { kinds: [], collection };
        known.kinds = [...new Set([...known.kinds, ...kindsOf(api, collection)])];
        this.everywhere.set(kind, known);
      }
    }
  }

  /** Every id (of a path) must be an object of `collection` made by the caller's project (through any route). */
  async mustOwn(caller: GatewayCaller, api: PassThroughApi, collection: ResourceCollection, ids: readonly string[]): Promise<void> {
    for (const id of ids) checkedId(id, `${collection.kind}_id`);
    await this.mustOwnOf(caller, kindsOf(api, collection), collection, ids);
  }

  /** The objects a pass-through request's JSON body names, by its vendor's reference fields. */
  async checkPassThroughBody(caller: GatewayCaller, api: PassThroughApi, body: unknown): Promise<void> {
    if (caller.kind === 'master') return;
    const named = collectReferences(body, api.resources.references, undefined);
    for (const [kind, ids] of named ?? []) {
      const collection = api.resources.collections.find((candidate) => candidate.kind === kind);
      if (collection) await this.mustOwn(caller, api, collection, ids);
    }
  }

  /**
   * The objects a model call's body names by upstream ids (a conversation, a file, a vector store
   * made through a pass-through or the gateway's own routes), whichever provider the call goes to;
   * no database read when it names none.
   */
  async checkModelCall(caller: GatewayCaller, body: Record<string, unknown>): Promise<void> {
    if (caller.kind === 'master') return;
    const named = collectReferences(body, this.fields, undefined);
    for (const [kind, ids] of named ?? []) {
      const known = this.everywhere.get(kind);
      if (known) await this.mustOwnOf(caller, known.kinds, known.collection, ids);
    }
  }

  private async mustOwnOf(caller: GatewayCaller, kinds: readonly string[], collection: ResourceCollection, named: readonly string[]): Promise<void> {
    if (caller.kind === 'master') return;
    // What the vendor publishes to all (Anthropic's own skills) is no project's.
    const ids = collection.published ? named.filter((id) => !collection.published?.test(id)) : named;
    if (ids.length === 0) return;
    const owned = await this.store.ownedUpstreamIds(caller, kinds, ids, collection.nativeKind === 'response');
    const missing = ids.find((id) => !owned.has(id));
    if (missing !== undefined) throw objectNotFound(collection, missing);
  }
}

/** The kinds an object of `collection` is recorded as: through this route, and through the gateway's own routes. */
export function kindsOf(api: PassThroughApi, collection: ResourceCollection): string[] {
  return collection.nativeKind ? [`${api.route}.${collection.kind}`, collection.nativeKind] : [`${api.route}.${collection.kind}`];
}

export function objectNotFound(collection: ResourceCollection, id: string): ProviderError {
  return new ProviderError(404, 'invalid_request_error', collection.missing.replace('{id}', excerpt(id)), `${collection.kind}_not_found`, 'id');
}

/**
 * Collects the ids a request body names under the reference fields, by kind: strings, lists of
 * strings, or `{id}`; `into` is made on the first one (undefined: the body names none). It walks
 * every message and content part of a call, so it allocates nothing on the way.
 */
function collectReferences(value: unknown, references: Readonly<Record<string, string>>, into: Map<string, string[]> | undefined): Map<string, string[]> | undefined {
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'object' && item !== null) into = collectReferences(item, references, into);
    return into;
  }
  if (typeof value !== 'object' || value === null) return into;
  const record = value as Record<string, unknown>;
  for (const field in record) {
    // Own fields only: a body's `constructor` or `toString` is not a reference field.
    if (!Object.hasOwn(record, field)) continue;
    const item = record[field];
    const kind = Object.hasOwn(references, field) ? references[field] : undefined;
    const ids = kind === undefined ? undefined : typeof item === 'string' ? [item] : Array.isArray(item) ? item.filter((id): id is string => typeof id === 'string') : idOf(item);
    // An id that is no text (a NUL, a lone surrogate) is refused naming its field, before any lookup.
    if (kind !== undefined && ids !== undefined && ids.length > 0) {
      into ??= new Map();
      into.set(kind, [...(into.get(kind) ?? []), ...ids.map((id) => checkedId(id, field))]);
    } else if (typeof item === 'object' && item !== null) into = collectReferences(item, references, into);
  }
  return into;
}

function idOf(value: unknown): string[] {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? [id] : [];
}
