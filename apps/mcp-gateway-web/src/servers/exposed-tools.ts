import { type CatalogueItem, isAgentSelection, type VirtualServer } from '../api/mcp-gateway-api';

/** A tool as a virtual server's clients see it. */
export interface ExposedTool {
  /** As the server exposes it: the upstream's name, `<upstream>__<name>` where two of its upstreams share one (the gateway's catalogue rule). */
  name: string;
  upstream: string;
  /** Its annotations say `destructiveHint: true`: it needs the operator role unless tool_roles names it. */
  destructive: boolean;
}

const NAME_SEPARATOR = '__';

/** The tools a server that takes `choices` (per upstream: `'*'` or the names) exposes, of those the upstreams offer now. */
export function exposedTools(choices: Readonly<Record<string, '*' | readonly string[]>>, catalogue: readonly CatalogueItem[]): ExposedTool[] {
  const taken = catalogue.filter((item) => {
    const choice = choices[item.upstream];
    return item.kind === 'tool' && choice !== undefined && (choice === '*' || choice.includes(item.name));
  });
  const upstreamsOf = new Map<string, number>();
  for (const item of taken) upstreamsOf.set(item.name, (upstreamsOf.get(item.name) ?? 0) + 1);
  return taken
    .map((item) => ({
      name: (upstreamsOf.get(item.name) ?? 0) > 1 ? `${item.upstream}${NAME_SEPARATOR}${item.name}` : item.name,
      upstream: item.upstream,
      destructive: item.destructive,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The tool names the servers expose, each once (what an API key of their project may be limited to); an agent a server offers is its one tool. */
export function toolNamesOf(servers: readonly Pick<VirtualServer, 'upstreams'>[], catalogue: readonly CatalogueItem[]): string[] {
  const choices = (server: Pick<VirtualServer, 'upstreams'>) =>
    Object.fromEntries(server.upstreams.map((selection) => (isAgentSelection(selection) ? [selection.agent, '*' as const] : [selection.upstream, selection.tools])));
  const names = servers.flatMap((server) => exposedTools(choices(server), catalogue));
  return [...new Set(names.map((tool) => tool.name))].sort((a, b) => a.localeCompare(b));
}
