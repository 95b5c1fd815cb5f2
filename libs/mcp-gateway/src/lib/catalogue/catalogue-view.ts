import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import { excerpt } from '@arbor/platform';
import { selects } from '../registry/registry-rules';
import type { UpstreamSelection } from '../registry/server-registry';
import type { CatalogueItem } from '../registry/upstream-catalogue';
import type { UpstreamOffer } from '../upstreams/upstream-pool';

/** What a lookup of a name (or URI) the caller sent answers when the catalogue has none: the name quoted as an excerpt. */
export function notInCatalogue(kind: 'Tool' | 'Prompt' | 'Resource', name: unknown): string {
  return `${kind} ${excerpt(String(name))} not found`;
}

/** `/mcp` prefixes every name; a virtual server only names that two of its upstreams share. */
export type PrefixRule = 'always' | 'on-collision';

/** Tool and prompt names: `<upstream>__<name>` (LLM function names allow `[A-Za-z0-9_-]` only). */
export const NAME_SEPARATOR = '__';
/** Resource URIs and templates: `mcpgw://<upstream>/<uri>`, a URI of the gateway's own. */
export const URI_PREFIX = 'mcpgw://';

export interface Exposed<T> {
  /** The name (or URI, URI template) the client sees. */
  name: string;
  upstream: string;
  /** As the upstream names it. */
  original: string;
  item: T;
}

/** Where a resource URI the client sent is read. */
export interface ResourceTarget {
  upstream: string;
  uri: string;
  /** The resource template (as the upstream names it) the URI matched, when it is read through one. */
  template?: string;
}

type Selection = Pick<UpstreamSelection, 'upstream' | 'tools' | 'resources' | 'prompts'>;

/**
 * What one virtual server (or `/mcp` for a caller) shows: the selected items of its upstreams
 * under the names the client sees, and the way back from those names to the upstreams.
 */
export class CatalogueView {
  readonly tools: readonly Exposed<Tool>[];
  readonly prompts: readonly Exposed<Prompt>[];
  readonly resources: readonly Exposed<Resource>[];
  readonly templates: readonly Exposed<ResourceTemplate>[];
  readonly capabilities: ServerCapabilities;
  private readonly toolsByName: Map<string, Exposed<Tool>>;
  private readonly promptsByName: Map<string, Exposed<Prompt>>;
  private readonly matchers: { entry: Exposed<ResourceTemplate>; original: UriTemplate }[];
  private readonly selections: Map<string, Selection>;

  constructor(
    selections: readonly Selection[],
    offers: ReadonlyMap<string, UpstreamOffer>,
    private readonly rule: PrefixRule,
    /** The client has a session: list changes, log messages and resource updates can reach it. */
    sessions: boolean,
  ) {
    this.selections = mergeSelections(selections);
    const picked = [...this.selections.values()].map((selection) => ({
      selection,
      offer: offers.get(selection.upstream),
    }));
    const pick = <T>(kind: CatalogueItem['kind'], list: (o: UpstreamOffer) => readonly T[], key: (t: T) => string) =>
      picked.flatMap(({ selection, offer }) =>
        offer
          ? list(offer)
              .filter((t) => selects(selection, { upstream: selection.upstream, kind, name: key(t) }))
              .map((item) => ({ upstream: selection.upstream, original: key(item), item }))
          : [],
      );
    this.tools = exposeNames(
      pick(
        'tool',
        (o) => o.tools,
        (t) => t.name,
      ),
      rule,
      prefixName,
    );
    this.prompts = exposeNames(
      pick(
        'prompt',
        (o) => o.prompts,
        (p) => p.name,
      ),
      rule,
      prefixName,
    );
    this.resources = exposeNames(
      pick(
        'resource',
        (o) => o.resources,
        (r) => r.uri,
      ),
      rule,
      prefixUri,
    );
    this.templates = exposeNames(
      pick(
        'resource-template',
        (o) => o.resourceTemplates,
        (r) => r.uriTemplate,
      ),
      rule,
      prefixUri,
    );
    this.toolsByName = new Map(this.tools.map((t) => [t.name, t]));
    this.promptsByName = new Map(this.prompts.map((p) => [p.name, p]));
    this.matchers = this.templates.map((entry) => ({
      entry,
      original: new UriTemplate(entry.original),
    }));
    this.capabilities = unionCapabilities(
      picked.flatMap(({ selection, offer }) => (offer ? [offer.unloaded ? promised(selection) : offer] : [])),
      sessions,
    );
  }

  get upstreams(): readonly string[] {
    return [...this.selections.keys()];
  }

  tool(name: string): Exposed<Tool> | undefined {
    return this.toolsByName.get(name);
  }

  /**
   * Where a tools/call goes: a listed tool, or a name no upstream lists that still reaches one
   * whose every tool the selection lets through (`<upstream>__<name>`, or the bare name on a
   * virtual server of one upstream): that upstream answers for it, as it would directly.
   */
  toolTarget(name: string): { upstream: string; original: string } | undefined {
    const listed = this.toolsByName.get(name);
    if (listed) return listed;
    const separator = name.indexOf(NAME_SEPARATOR);
    if (separator > 0) {
      const upstream = name.slice(0, separator);
      if (this.selections.get(upstream)?.tools === '*') return { upstream, original: name.slice(separator + NAME_SEPARATOR.length) };
    }
    const [only, ...others] = this.selections.values();
    return this.rule === 'on-collision' && only && others.length === 0 && only.tools === '*' ? { upstream: only.upstream, original: name } : undefined;
  }

  prompt(name: string): Exposed<Prompt> | undefined {
    return this.promptsByName.get(name);
  }

  /**
   * Which upstream serves a URI the client sent: a listed resource (by the name shown or, from a
   * resource link inside a tool result, as the upstream names it), a `mcpgw://` form, a URI
   * matching a template, or an upstream whose resources are all selected.
   */
  resource(uri: string): ResourceTarget | undefined {
    const listed = this.resources.find((r) => r.name === uri) ?? this.resources.find((r) => r.original === uri);
    if (listed) return { upstream: listed.upstream, uri: listed.original };
    const prefixed = unprefixUri(uri);
    if (prefixed && this.allowsUri(prefixed.upstream, prefixed.uri)) {
      const template = this.matchers.find((m) => m.entry.upstream === prefixed.upstream && m.original.match(prefixed.uri));
      return template ? { ...prefixed, template: template.entry.original } : prefixed;
    }
    const templated = this.matchers.find((m) => m.original.match(uri));
    if (templated) return { upstream: templated.entry.upstream, uri, template: templated.entry.original };
    const open = [...this.selections.values()].find((s) => s.resources === '*');
    return open ? { upstream: open.upstream, uri } : undefined;
  }

  /** A resource template the client named (completion of `ref/resource`). */
  template(uriTemplate: string): ResourceTarget | undefined {
    const entry = this.templates.find((t) => t.name === uriTemplate) ?? this.templates.find((t) => t.original === uriTemplate);
    return entry ? { upstream: entry.upstream, uri: entry.original } : undefined;
  }

  /** The URI the client knows for an upstream's URI (resources/updated, read results). */
  exposedUri(upstream: string, uri: string): string {
    const listed = this.resources.find((r) => r.upstream === upstream && r.original === uri);
    if (listed) return listed.name;
    const template = this.matchers.find((m) => m.entry.upstream === upstream && m.original.match(uri));
    return template && template.entry.name !== template.entry.original ? prefixUri(upstream, uri) : uri;
  }

  private allowsUri(upstream: string, uri: string): boolean {
    const selection = this.selections.get(upstream);
    if (!selection) return false;
    if (selects(selection, { upstream, kind: 'resource', name: uri })) return true;
    return this.matchers.some((m) => m.entry.upstream === upstream && m.original.match(uri));
  }
}

export function prefixName(upstream: string, name: string): string {
  return `${upstream}${NAME_SEPARATOR}${name}`;
}

export function prefixUri(upstream: string, uri: string): string {
  return `${URI_PREFIX}${upstream}/${uri}`;
}

function unprefixUri(uri: string): ResourceTarget | undefined {
  if (!uri.startsWith(URI_PREFIX)) return undefined;
  const rest = uri.slice(URI_PREFIX.length);
  const slash = rest.indexOf('/');
  return slash > 0 ? { upstream: rest.slice(0, slash), uri: rest.slice(slash + 1) } : undefined;
}

/** Several servers (on `/mcp`) may select from one upstream: what any of them selects is shown. */
function mergeSelections(selections: readonly Selection[]): Map<string, Selection> {
  const merged = new Map<string, Selection>();
  const union = (a: Selection['tools'], b: Selection['tools']) => (a === '*' || b === '*' ? '*' : [...new Set([...a, ...b])]);
  for (const s of selections) {
    const known = merged.get(s.upstream);
    merged.set(
      s.upstream,
      known ? { upstream: s.upstream, tools: union(known.tools, s.tools), resources: union(known.resources, s.resources), prompts: union(known.prompts, s.prompts) } : s,
    );
  }
  return merged;
}

function exposeNames<T>(items: { upstream: string; original: string; item: T }[], rule: PrefixRule, prefix: (upstream: string, name: string) => string): Exposed<T>[] {
  const counts = new Map<string, number>();
  for (const { original } of items) counts.set(original, (counts.get(original) ?? 0) + 1);
  return items.map((i) => ({
    ...i,
    name: rule === 'always' || (counts.get(i.original) ?? 0) > 1 ? prefix(i.upstream, i.original) : i.original,
  }));
}

/**
 * An upstream not loaded yet (down when the session opened, or per-person and nobody connected
 * yet) stands for what the server selects of it: a session's capabilities are fixed at its start,
 * and without them the tools that come with the upstream would stay "Method not found" to it (with
 * them, the list-changed notice brings them); a call by name still reaches the upstream, which
 * answers it, or asks the person to connect first.
 */
function promised(selection: Selection): UpstreamOffer {
  const some = (names: Selection['tools']) => (names === '*' || names.length > 0 ? {} : undefined);
  const [tools, resources, prompts] = [some(selection.tools), some(selection.resources), some(selection.prompts)];
  return { capabilities: { ...(tools && { tools }), ...(resources && { resources }), ...(prompts && { prompts }) }, tools: [], resources: [], resourceTemplates: [], prompts: [] };
}

/**
 * What the upstreams offer together, as far as the client can receive it. With a session (stateful
 * HTTP, SSE, WebSocket) the gateway relays list changes, log messages and resource updates; a
 * stateless request has no stream list changes and updates could arrive on, so it is not promised
 * them; log messages it gets on the call's own stream, from the upstreams that send them there.
 */
function unionCapabilities(offers: readonly UpstreamOffer[], sessions: boolean): ServerCapabilities {
  const any = (has: (c: ServerCapabilities) => unknown) => offers.some((offer) => has(offer.capabilities));
  const listChanged = sessions ? { listChanged: true } : {};
  return {
    ...(any((c) => c.tools) ? { tools: { ...listChanged } } : {}),
    ...(any((c) => c.resources) ? { resources: { ...listChanged, ...(sessions && any((c) => c.resources?.subscribe) ? { subscribe: true } : {}) } } : {}),
    ...(any((c) => c.prompts) ? { prompts: { ...listChanged } } : {}),
    ...(any((c) => c.completions) ? { completions: {} } : {}),
    ...(offers.some((o) => o.capabilities.logging && (sessions || o.logsPerCall)) ? { logging: {} } : {}),
  };
}
