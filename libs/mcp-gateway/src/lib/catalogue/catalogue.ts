import type { Prompt, Resource, Result, ResourceTemplate, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { excerpt } from '@arbor/platform';
import type { CatalogueCaller, CatalogueAccess, CatalogueItemRef } from './catalogue-access';
import { type CatalogueView, type Exposed, notInCatalogue } from './catalogue-view';
import { page } from './pagination';
import type { ToolCallGuard } from '../guardrails/tool-call-guard';

/** A `tools/call`'s params as the client sent them: the name it sees, the arguments, and whatever else travels with them. */
export type ToolCallParams = { name: string; arguments?: Record<string, unknown> } & Record<string, unknown>;

/** Where a name the caller sent goes: the upstream, and the name (or URI) it knows the item by. */
export interface CatalogueTarget {
  upstream: string;
  original: string;
}

/** A `completion/complete` reference, turned toward the upstream that answers it. */
export interface CompletionTarget {
  upstream: string;
  ref: Record<string, unknown>;
}

type Page<K extends string, T> = { [key in K]: T[] } & { nextCursor?: string };

/**
 * One caller's catalogue: the lists it is shown (a page at a time, under the names it sees) and
 * the way from a name it sends to the upstream that answers, for the stateful sessions, the
 * stateless path and the discover-first endpoint alike. An access policy, when there is one,
 * leaves out of both what the caller may not use; guardrails, when the server has any, check
 * every tool call's arguments and result (`callTool`).
 */
export class Catalogue {
  constructor(
    readonly view: CatalogueView,
    private readonly pageSize: number,
    private readonly access?: { caller: CatalogueCaller; policy: CatalogueAccess },
    /** The guardrails of each upstream's tools, for the upstreams that have any. */
    private readonly guards?: ReadonlyMap<string, ToolCallGuard>,
  ) {}

  get capabilities(): ServerCapabilities {
    return this.view.capabilities;
  }

  /** The upstreams whose items the caller may be shown. */
  get upstreams(): readonly string[] {
    return this.view.upstreams;
  }

  listTools(cursor: unknown): Page<'tools', Tool> {
    const { items, nextCursor } = this.page(this.visible('tool', this.view.tools), cursor);
    return { tools: items.map((t) => ({ ...t.item, name: t.name })), ...(nextCursor ? { nextCursor } : {}) };
  }

  listPrompts(cursor: unknown): Page<'prompts', Prompt> {
    const { items, nextCursor } = this.page(this.visible('prompt', this.view.prompts), cursor);
    return { prompts: items.map((p) => ({ ...p.item, name: p.name })), ...(nextCursor ? { nextCursor } : {}) };
  }

  listResources(cursor: unknown): Page<'resources', Resource> {
    const { items, nextCursor } = this.page(this.visible('resource', this.view.resources), cursor);
    return { resources: items.map((r) => ({ ...r.item, uri: r.name })), ...(nextCursor ? { nextCursor } : {}) };
  }

  listResourceTemplates(cursor: unknown): Page<'resourceTemplates', ResourceTemplate> {
    const { items, nextCursor } = this.page(this.visible('resource-template', this.view.templates), cursor);
    return { resourceTemplates: items.map((t) => ({ ...t.item, uriTemplate: t.name })), ...(nextCursor ? { nextCursor } : {}) };
  }

  /** A tool the caller is shown, with its definition (the discover-first endpoint reads its `x-mcp-header`s). */
  listedTool(name: string): Exposed<Tool> | undefined {
    const tool = this.view.tool(name);
    return tool && this.permits('tool', tool) ? tool : undefined;
  }

  /** Where a `tools/call` goes; Invalid params when the caller has no such tool. */
  tool(name: string): CatalogueTarget {
    const target = this.view.toolTarget(name);
    if (!target || !this.permits('tool', target)) throw new McpError(ErrorCode.InvalidParams, notInCatalogue('Tool', name));
    return target;
  }

  /**
   * A `tools/call`, sent by `send` to the upstream that answers it under the name it knows, with the
   * guardrails of the tool's server around it: the arguments it sees are masked, and a result with
   * what a guardrail blocks never comes back (a tool error does instead). Unguarded: `send` alone.
   */
  async callTool(params: ToolCallParams, send: (upstream: string, params: ToolCallParams) => Promise<Result>): Promise<Result> {
    const tool = this.tool(params.name);
    const guard = this.guards?.get(tool.upstream);
    if (!guard) return send(tool.upstream, { ...params, name: tool.original });
    const checked = guard.arguments(params.arguments);
    if ('refused' in checked) return checked.refused;
    const guarded = checked.arguments === params.arguments ? params : { ...params, arguments: checked.arguments };
    return guard.result(await send(tool.upstream, { ...guarded, name: tool.original }));
  }

  /** Where a `prompts/get` goes; Invalid params when the caller has no such prompt. */
  prompt(name: string): CatalogueTarget {
    const prompt = this.view.prompt(name);
    if (!prompt || !this.permits('prompt', prompt)) throw new McpError(ErrorCode.InvalidParams, notInCatalogue('Prompt', name));
    return prompt;
  }

  /**
   * Where a URI the caller sent is read (or subscribed to). `notFound`: the code an unknown
   * resource gets, -32002 before 2026-07-28, Invalid params since.
   */
  resource(uri: string, notFound: number): CatalogueTarget {
    const target = this.resourceIfAny(uri);
    if (!target) throw new McpError(notFound, notInCatalogue('Resource', uri), { uri: excerpt(uri) });
    return target;
  }

  /** Where a URI the caller sent is read, if the caller has it (subscriptions the endpoint may leave out). */
  resourceIfAny(uri: string): CatalogueTarget | undefined {
    const found = this.view.resource(uri);
    const target = found && { upstream: found.upstream, original: found.uri };
    return target && this.permits('resource', target) ? target : undefined;
  }

  /** Where a `completion/complete` goes: a prompt or resource template the caller is shown. */
  completion(ref: unknown): CompletionTarget {
    const { type, name, uri } = (typeof ref === 'object' && ref !== null ? ref : {}) as { type?: unknown; name?: unknown; uri?: unknown };
    const asked = ref as Record<string, unknown>;
    if (type === 'ref/prompt' && typeof name === 'string') {
      const prompt = this.view.prompt(name);
      if (prompt && this.permits('prompt', prompt)) return { upstream: prompt.upstream, ref: { ...asked, name: prompt.original } };
    } else if (type === 'ref/resource' && typeof uri === 'string') {
      const template = this.view.template(uri);
      if (template && this.permits('resource-template', { upstream: template.upstream, original: template.uri })) {
        return { upstream: template.upstream, ref: { ...asked, uri: template.uri } };
      }
    }
    throw new McpError(ErrorCode.InvalidParams, 'Unknown completion reference');
  }

  /** The URI the caller knows for an upstream's URI (resources/updated). */
  exposedUri(upstream: string, uri: string): string {
    return this.view.exposedUri(upstream, uri);
  }

  /** A read's contents under the URI the caller asked by, when the upstream knows it by another. */
  static readAs<R extends { contents?: unknown }>(result: R, target: CatalogueTarget, asked: string): R {
    if (target.original === asked || !Array.isArray(result.contents)) return result;
    return { ...result, contents: (result.contents as { uri?: unknown }[]).map((c) => (c.uri === target.original ? { ...c, uri: asked } : c)) };
  }

  private page<T>(all: readonly T[], cursor: unknown) {
    if (cursor !== undefined && typeof cursor !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
    return page(all, cursor, this.pageSize);
  }

  private visible<T>(kind: CatalogueItemRef['kind'], all: readonly Exposed<T>[]): readonly Exposed<T>[] {
    return this.access ? all.filter((entry) => this.permits(kind, entry)) : all;
  }

  private permits(kind: CatalogueItemRef['kind'], target: CatalogueTarget): boolean {
    return !this.access || this.access.policy.permits(this.access.caller, { kind, upstream: target.upstream, name: target.original });
  }
}
