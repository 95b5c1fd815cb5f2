import { Injectable, Optional } from '@nestjs/common';
import { AgentDirectory } from '../agents/agent-directory';
import { AgentMetrics } from '../agents/agent-metrics';
import type { AgentDefinition } from '../agents/agent-definition';
import type { DashboardStatus, DashboardTile, DashboardViewer } from '@arbor/contract';
import { McpMetrics } from '../metrics/mcp-metrics';
import { UpstreamCatalogue } from '../registry/upstream-catalogue';
import { ServerRegistry, VirtualServerDefinition } from '../registry/server-registry';

/**
 * The MCP gateway's card on the suite dashboard, for one person: per project they may see, the
 * virtual servers, the tools they expose, tool calls and errors in the last 24 h, the
 * upstreams that are down, and (with the agents module) the A2A agents, their calls and errors
 * in the last 24 h and those that are down. From what the runtime holds in memory (registry, catalogues, health,
 * the call counters): no database query, no log.
 */
@Injectable()
export class McpDashboard {
  constructor(
    private readonly registry: ServerRegistry,
    private readonly catalogue: UpstreamCatalogue,
    private readonly metrics: McpMetrics,
    @Optional() private readonly agents?: AgentDirectory,
    @Optional() private readonly agentMetrics?: AgentMetrics,
  ) {}

  summary(viewer: DashboardViewer): { status: DashboardStatus; tiles: DashboardTile[] } {
    if (viewer.permissions.source === 'unavailable') return { status: 'unknown', tiles: [] };
    const visible = viewer.visibleProjects();
    const allowed = visible === 'all' ? null : new Set(visible);
    const servers = this.registry.servers().filter((server) => allowed === null || allowed.has(server.project));
    const agentProjects = this.registry
      .agents()
      .filter((agent) => allowed === null || allowed.has(agent.project))
      .map((agent) => agent.project);
    const projects = [...new Set([...(allowed ?? []), ...servers.map((server) => server.project), ...agentProjects])].sort();
    if (projects.length === 0) return { status: 'ok', tiles: [] };
    const byProject = new Map<string, VirtualServerDefinition[]>(projects.map((project) => [project, []]));
    for (const server of servers) byProject.get(server.project)?.push(server);
    const down = new Set(
      this.catalogue
        .health()
        .filter((health) => health.state === 'down')
        .map((health) => health.upstream),
    );
    const per = (value: (servers: VirtualServerDefinition[]) => number) => projects.map((project) => ({ project, value: value(byProject.get(project) ?? []) }));
    const tile = (label: string, unit: string | null, value: (servers: VirtualServerDefinition[]) => number): DashboardTile => {
      const breakdown = per(value);
      return { label, value: breakdown.reduce((sum, row) => sum + row.value, 0), unit, breakdown };
    };
    const recent = (list: VirtualServerDefinition[], field: 'calls' | 'errors') => list.reduce((sum, server) => sum + this.metrics.recentToolCalls.lastDay(server.id)[field], 0);
    const unhealthy = (list: VirtualServerDefinition[]) => new Set(list.flatMap((server) => server.selections.map((s) => s.upstream)).filter((upstream) => down.has(upstream)));
    const unhealthyVisible = unhealthy(servers);
    const agentTiles = this.agentTiles(projects, allowed);
    return {
      status: unhealthyVisible.size > 0 || agentTiles.down > 0 ? 'degraded' : 'ok',
      tiles: [
        tile('Virtual servers', null, (list) => list.length),
        tile('Tools exposed', null, (list) => list.reduce((sum, server) => sum + this.toolCount(server), 0)),
        tile('Tool calls, last 24 h', 'calls', (list) => recent(list, 'calls')),
        tile('Tool errors, last 24 h', 'calls', (list) => recent(list, 'errors')),
        { ...tile('Upstreams down', null, (list) => unhealthy(list).size), value: unhealthyVisible.size },
        ...agentTiles.tiles,
      ],
    };
  }

  /** Agents per project, their calls and errors over the last 24 h (proxied and as tools), and how many are down. */
  private agentTiles(projects: string[], allowed: Set<string> | null): { tiles: DashboardTile[]; down: number } {
    const directory = this.agents;
    const metrics = this.agentMetrics;
    if (!directory || !metrics) return { tiles: [], down: 0 };
    const agents = this.registry.agents().filter((agent) => allowed === null || allowed.has(agent.project));
    const down = new Set(
      directory
        .health()
        .filter((health) => health.state === 'down')
        .map((health) => health.agent),
    );
    const tile = (label: string, unit: string | null, value: (agent: AgentDefinition) => number): DashboardTile => {
      const breakdown = projects.map((project) => ({ project, value: agents.filter((agent) => agent.project === project).reduce((sum, agent) => sum + value(agent), 0) }));
      return { label, value: breakdown.reduce((sum, row) => sum + row.value, 0), unit, breakdown };
    };
    const downVisible = agents.filter((agent) => down.has(agent.name)).length;
    return {
      down: downVisible,
      tiles: [
        tile('Agents', null, () => 1),
        tile('Agent calls, last 24 h', 'calls', (agent) => metrics.recentCalls.lastDay(agent.name).calls),
        tile('Agent errors, last 24 h', 'calls', (agent) => metrics.recentCalls.lastDay(agent.name).errors),
        tile('Agents down', null, (agent) => (down.has(agent.name) ? 1 : 0)),
      ],
    };
  }

  private toolCount(server: VirtualServerDefinition): number {
    let count = 0;
    for (const selection of server.selections) {
      for (const item of this.catalogue.items(selection.upstream)) {
        if (item.kind === 'tool' && (selection.tools === '*' || selection.tools.includes(item.name))) count += 1;
      }
    }
    return count;
  }
}
