import type { Prompt, Resource, Result, ResourceTemplate, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { excerpt } from '@arbor/platform';
import type { CatalogueCaller, CatalogueAccess, CatalogueItemRef } from './catalogue-access';
import { type CatalogueView, type Exposed, notInCatalogue } from './catalogue-view';
import { page } from './pagination';
import type { ToolCallGuard } from '../guardrails/tool-call-guard';
import type { ToolCallAudit, ToolCallOutcome } from '../audit/tool-call-audit';
import type { ToolRateLimits } from '../rate-limits/tool-rate-limits';

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

/** What a tool call passes besides access and guardrails: its tool's rate limits, and the audit that records it. */
export interface ToolCallPolicies {
  caller: CatalogueCaller;
  limits?: ToolRateLimits;
  audit?: ToolCallAudit;
}

/** The `_meta` key of a tool error a guardrail answered (see guardrails/). */
const GUARDRAIL_VIOLATION = 'arbor/guardrail_violation';

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
    private readonly calls?: ToolCallPolicies,
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

  /**
   * What the caller is shown of each list, as one comparable text: a session compares it before and
   * after a change of the registry (tool roles, selections) to tell its client which lists changed.
   */
  shown(): Record<'tools' | 'prompts' | 'resources', string> {
    const names = (entries: readonly { name: string }[]) => entries.map((entry) => entry.name).join('\u0000');
    return {
      tools: names(this.visible('tool', this.view.tools)),
      prompts: names(this.visible('prompt', this.view.prompts)),
      resources: `${names(this.visible('resource', this.view.resources))}\u0001${names(this.visible('resource-template', this.view.templates))}`,
    };
  }

  /** A tool the caller is shown, with its definition (the discover-first endpoint reads its `x-mcp-header`s). */
  listedTool(name: string): Exposed<Tool> | undefined {
    const tool = this.view.tool(name);
    return tool && this.permits('tool', tool, tool.item.annotations?.destructiveHint === true) ? tool : undefined;
  }

  /** Whether the caller has a tool of this name (one it may not use it has not). */
  hasTool(name: string): boolean {
    return this.findTool(name).permitted;
  }

  /** Where a `tools/call` goes; Invalid params when the caller has no such tool. */
  tool(name: string): CatalogueTarget {
    const found = this.findTool(name);
    if (!found.permitted) throw new McpError(ErrorCode.InvalidParams, notInCatalogue('Tool', name));
    return found.target;
  }

  /**
   * A `tools/call`, sent by `send` to the upstream that answers it under the name it knows, with the
   * guardrails of the tool's server around it: the arguments it sees are masked, and a result with
   * what a guardrail blocks never comes back (a tool error does instead). A call over its tool's rate
   * limit is refused before anything else; the audit, when there is one, records every call (after
   * the answer, off the call's path). Without guardrails, limits or audit: `send` alone.
   */
  async callTool(params: ToolCallParams, send: (upstream: string, params: ToolCallParams) => Promise<Result>): Promise<Result> {
    const calls = this.calls;
    if (!calls || (!calls.audit && !calls.limits)) return this.guardedCall(this.tool(params.name), params, send);
    const started = performance.now();
    const audit = calls.audit;
    const found = this.findTool(params.name);
    const record = (outcome: ToolCallOutcome, extra: { errorCode?: number; arguments?: unknown; result?: unknown } = {}) =>
      audit?.record({ caller: calls.caller, tool: params.name, upstream: found.target?.upstream ?? null, outcome, durationMs: performance.now() - started, ...extra });
    if (!found.permitted) {
      record(found.target ? 'denied' : 'not_found');
      throw new McpError(ErrorCode.InvalidParams, notInCatalogue('Tool', params.name));
    }
    const tool = found.target;
    try {
      await calls.limits?.admit(calls.caller, { upstream: tool.upstream, original: tool.original, name: params.name });
    } catch (error) {
      record('rate_limited', { errorCode: (error as { code?: number }).code });
      throw error;
    }
    const payloads = audit?.keepsPayloads(calls.caller, tool.upstream) === true;
    let sent: Record<string, unknown> | undefined;
    try {
      const result = await this.guardedCall(tool, params, (upstream, guarded) => {
        sent = guarded.arguments;
        return send(upstream, guarded);
      });
      const meta = result['_meta'] as Record<string, unknown> | undefined;
      const outcome = meta?.[GUARDRAIL_VIOLATION] !== undefined ? 'blocked' : result['isError'] === true ? 'tool_error' : 'ok';
      record(outcome, payloads ? { arguments: sent ?? null, result } : {});
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      record('error', { ...(typeof code === 'number' ? { errorCode: code } : {}), ...(payloads ? { arguments: sent ?? null } : {}) });
      throw error;
    }
  }

  private async guardedCall(tool: CatalogueTarget, params: ToolCallParams, send: (upstream: string, params: ToolCallParams) => Promise<Result>): Promise<Result> {
    const guard = this.guards?.get(tool.upstream);
    if (!guard) return send(tool.upstream, { ...params, name: tool.original });
    const checked = guard.arguments(params.arguments);
    if ('refused' in checked) return checked.refused;
    const guarded = checked.arguments === params.arguments ? params : { ...params, arguments: checked.arguments };
    return guard.result(await send(tool.upstream, { ...guarded, name: tool.original }));
  }

  /** The tool a name goes to, and whether the caller may use it (a tool it may not is answered as one there is not). */
  private findTool(name: string): { target: CatalogueTarget; permitted: true } | { target: CatalogueTarget | undefined; permitted: false } {
    const target = this.view.toolTarget(name);
    if (!target) return { target, permitted: false };
    const item = (target as Partial<Exposed<Tool>>).item;
    return this.permits('tool', target, item?.annotations?.destructiveHint === true) ? { target, permitted: true } : { target, permitted: false };
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
    return target && this.permits('resource', target, false, found.template) ? target : undefined;
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
    if (!this.access) return all;
    return all.filter((entry) => this.permits(kind, entry, kind === 'tool' && (entry.item as Tool).annotations?.destructiveHint === true));
  }

  private permits(kind: CatalogueItemRef['kind'], target: CatalogueTarget, destructive = false, template?: string): boolean {
    if (!this.access) return true;
    const item: CatalogueItemRef = { kind, upstream: target.upstream, name: target.original };
    if (destructive) item.destructive = true;
    if (template !== undefined) item.template = template;
    return this.access.policy.permits(this.access.caller, item);
  }
}
