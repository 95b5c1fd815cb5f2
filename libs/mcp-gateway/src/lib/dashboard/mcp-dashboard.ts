import { Injectable } from '@nestjs/common';
import type { DashboardStatus, DashboardTile, DashboardViewer } from '@arbor/contract';
import { McpMetrics } from '../metrics/mcp-metrics';
import { UpstreamCatalogue } from '../registry/upstream-catalogue';
import { ServerRegistry, VirtualServerDefinition } from '../registry/server-registry';

/**
 * The MCP gateway's card on the suite dashboard, for one person: per project they may see, the
 * virtual servers, the tools they expose, tool calls and errors in the last 24 h and the
 * upstreams that are down. From what the runtime holds in memory (registry, catalogues, health,
 * the call counters): no database query, no log.
 */
@Injectable()
export class McpDashboard {
  constructor(
    private readonly registry: ServerRegistry,
    private readonly catalogue: UpstreamCatalogue,
    private readonly metrics: McpMetrics,
  ) {}

  summary(viewer: DashboardViewer): { status: DashboardStatus; tiles: DashboardTile[] } {
    if (viewer.permissions.source === 'unavailable') return { status: 'unknown', tiles: [] };
    const visible = viewer.visibleProjects();
    const allowed = visible === 'all' ? null : new Set(visible);
    const servers = this.registry.servers().filter((server) => allowed === null || allowed.has(server.project));
    const projects = [...new Set([...(allowed ?? []), ...servers.map((server) => server.project)])].sort();
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
    return {
      status: unhealthyVisible.size > 0 ? 'degraded' : 'ok',
      tiles: [
        tile('Virtual servers', null, (list) => list.length),
        tile('Tools exposed', null, (list) => list.reduce((sum, server) => sum + this.toolCount(server), 0)),
        tile('Tool calls, last 24 h', 'calls', (list) => recent(list, 'calls')),
        tile('Tool errors, last 24 h', 'calls', (list) => recent(list, 'errors')),
        { ...tile('Upstreams down', null, (list) => unhealthy(list).size), value: unhealthyVisible.size },
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
