import { Injectable, Optional } from '@nestjs/common';
import { ControlPlaneUnavailableError, ProjectRecord, RepositoryRecord } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { McpControlPlaneAccess } from '../admin/admin-access';

/**
 * The control plane's projects as the MCP gateway checks them, through the contract's client
 * (when the gateway is configured for the control plane; without it a slug is taken as given).
 */
@Injectable()
export class McpControlPlaneProjects {
  constructor(@Optional() private readonly controlPlane?: McpControlPlaneAccess) {}

  /** The project; null without a control plane. 404 `project_not_found`, 503 when it cannot be asked. */
  async require(slug: string): Promise<ProjectRecord | null> {
    const client = this.controlPlane?.client;
    if (!client) return null;
    const project = await answer(() => client.findProject({ slug }));
    if (!project) throw new ApiError(404, 'project_not_found', `The control plane has no project "${excerpt(slug)}".`);
    return project;
  }

  /** The repositories of a project (by slug) for the admin view; empty without a control plane. */
  async repositories(slug: string): Promise<RepositoryRecord[]> {
    const client = this.controlPlane?.client;
    if (!client) return [];
    return answer(async () => (await client.listRepositories()).filter((repository) => repository.project_slug === slug));
  }

  /** For project sync: the project now, or null; throws ControlPlaneUnavailableError so that the delivery is retried. */
  findProject(query: { id: string } | { slug: string }): Promise<ProjectRecord | null> {
    const client = this.controlPlane?.client;
    if (!client) throw new ControlPlaneUnavailableError('the gateway is not configured for the control plane');
    return client.findProject(query);
  }
}

async function answer<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof ControlPlaneUnavailableError) {
      throw new ApiError(503, 'control_plane_unavailable', 'The control plane cannot be asked about the project right now; try again shortly.');
    }
    throw error;
  }
}
