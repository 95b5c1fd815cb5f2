import { MetricsRegistry, SeriesCounter } from '@arbor/observability';
import { type ContentFilterGuardrail, ContentFilter, type GuardrailDefinition } from '@arbor/guardrails';
import type { VirtualServerDefinition } from '../registry/server-registry';
import { UnknownGuardrails } from './guardrail.exception';
import { type RunningGuardrail, ToolCallGuard } from './tool-call-guard';

interface Configured {
  readonly running: RunningGuardrail;
  readonly before: boolean;
  readonly after: boolean;
  readonly defaultOn: boolean;
}

/**
 * The guardrails of MCPGW_CONFIG, compiled once, as a policy on the catalogue: the tools of a
 * virtual server are guarded by the guardrails it names and by every `default_on` one; on `/mcp`,
 * a tool by those of every server of the caller's grant that selects its upstream (the strictest:
 * `/mcp` is no way around a server's guardrails). Off, and asked nothing, without guardrails.
 */
export class ToolCallGuardrails {
  /** The configured guardrails' names, in config order. */
  readonly names: readonly string[];
  private readonly configured: ReadonlyMap<string, Configured>;
  /** One guard per list of guardrail names: built once, shared by every catalogue. */
  private readonly guards = new Map<string, ToolCallGuard>();

  constructor(definitions: readonly GuardrailDefinition[], registry: MetricsRegistry) {
    this.names = definitions.map((definition) => definition.name);
    this.configured = definitions.length === 0 ? new Map() : configured(definitions, registry);
  }

  get on(): boolean {
    return this.configured.size > 0;
  }

  /** Refuses (400 `unknown_guardrail`) names the config does not have. */
  check(names: readonly string[]): void {
    const unknown = names.filter((name) => !this.configured.has(name));
    if (unknown.length > 0) throw new UnknownGuardrails(unknown, this.names);
  }

  /** The guard of each upstream the servers select, for the upstreams with guardrails; undefined when none has any. */
  forServers(servers: readonly (VirtualServerDefinition | undefined)[]): ReadonlyMap<string, ToolCallGuard> | undefined {
    if (!this.on) return undefined;
    const named = new Map<string, Set<string>>();
    for (const server of servers) {
      if (!server) continue;
      for (const selection of server.selections) {
        let names = named.get(selection.upstream);
        if (!names) named.set(selection.upstream, (names = new Set()));
        for (const name of server.guardrails ?? []) names.add(name);
      }
    }
    const guards = new Map<string, ToolCallGuard>();
    for (const [upstream, names] of named) {
      const guard = this.guard(names);
      if (guard) guards.set(upstream, guard);
    }
    return guards.size > 0 ? guards : undefined;
  }

  /** The guard of these names and the default_on guardrails (in config order); undefined when that is none. */
  private guard(names: ReadonlySet<string>): ToolCallGuard | undefined {
    const applying = [...this.configured.entries()].filter(([name, entry]) => entry.defaultOn || names.has(name)).map(([, entry]) => entry);
    const missing = [...names].filter((name) => !this.configured.has(name));
    if (applying.length === 0 && missing.length === 0) return undefined;
    const key = `${applying.map((entry) => entry.running.name).join('\u0000')}\u0001${missing.join('\u0000')}`;
    let guard = this.guards.get(key);
    if (!guard) {
      guard = new ToolCallGuard(
        applying.filter((entry) => entry.before).map((entry) => entry.running),
        applying.filter((entry) => entry.after).map((entry) => entry.running),
        missing,
      );
      this.guards.set(key, guard);
    }
    return guard;
  }
}

/** The guardrails compiled, each with its series of the actions counter (registered only when there are guardrails). */
function configured(definitions: readonly GuardrailDefinition[], registry: MetricsRegistry): Map<string, Configured> {
  const actions = new SeriesCounter({
    name: 'arbor_mcpgw_guardrail_actions_total',
    help: 'Tool calls a guardrail refused (action block: arguments before the upstream, or a result before the client) or whose arguments or result it masked (action mask), by guardrail.',
    labelNames: ['guardrail', 'action'],
    registers: [registry],
  });
  // The MCP gateway's scope runs the content filter only (the config refuses the other kinds).
  const filters = definitions.filter((definition): definition is ContentFilterGuardrail => definition.kind === 'litellm_content_filter');
  return new Map(
    filters.map((definition) => [
      definition.name,
      {
        running: {
          name: definition.name,
          filter: new ContentFilter(definition.contentFilter),
          blocked: actions.series({ guardrail: definition.name, action: 'block' }),
          masked: actions.series({ guardrail: definition.name, action: 'mask' }),
        },
        before: definition.modes.includes('pre_mcp_call'),
        after: definition.modes.includes('post_mcp_call'),
        defaultOn: definition.defaultOn,
      },
    ]),
  );
}
