import { Injectable, Optional } from '@nestjs/common';
import { ControlPlaneClient, ControlPlaneNotFoundError, ControlPlaneUnavailableError, ProjectRecord, RepositoryRecord } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';

/**
 * The projects of the control plane as the AI gateway's admin API checks them, through the
 * contract's client (present when the gateway is configured for the control plane; without it
 * any slug is taken as given, as before there was a control plane).
 */
@Injectable()
export class ControlPlaneProjects {
  constructor(@Optional() private readonly client?: ControlPlaneClient) {}

  get configured(): boolean {
    return this.client !== undefined;
  }

  /**
   * The project; null without a control plane. 404 `project_not_found`; when the control plane
   * cannot be asked, 503, or null with `uncheckedWhenUnavailable` (the next sync of the slug matches it).
   */
  async require(slug: string, uncheckedWhenUnavailable = false): Promise<ProjectRecord | null> {
    if (!this.client) return null;
    const client = this.client;
    let project: ProjectRecord | null;
    try {
      project = await this.answer(() => client.findProject({ slug }));
    } catch (error) {
      if (uncheckedWhenUnavailable && error instanceof ApiError && error.code === 'control_plane_unavailable') return null;
      throw error;
    }
    if (!project) throw new ApiError(404, 'project_not_found', `The control plane has no project "${excerpt(slug)}".`);
    return project;
  }

  /** Throws 400 unless `fullName` is a repository of the project (`project` as require() found it). */
  async requireRepository(project: ProjectRecord | null, slug: string, fullName: string): Promise<RepositoryRecord> {
    const client = this.client;
    if (!client || !project) {
      throw new ApiError(503, 'control_plane_unavailable', 'Scoping a key to a repository needs the control plane, which knows the repositories; it cannot be asked now.');
    }
    const repositories = await this.answer(() => client.projectRepositories(project.id));
    const repository = repositories.find((candidate) => candidate.full_name === fullName);
    if (!repository) {
      throw new ApiError(400, 'repository_not_in_project', `Project "${excerpt(slug)}" has no repository "${excerpt(fullName)}" in the control plane.`, {
        repositories: repositories.map((candidate) => candidate.full_name),
      });
    }
    return repository;
  }

  /**
   * Throws 400 unless `userId` is a control-plane user with a role on the project `slug` (the
   * person a key is for, or whose budget in the project is set). Without a control plane the id
   * is taken as given; while it cannot be asked, 503, or nothing with `uncheckedWhenUnavailable`.
   */
  async requireMember(slug: string, userId: string, uncheckedWhenUnavailable = false): Promise<void> {
    const client = this.client;
    if (!client) return;
    let permissions: readonly string[];
    try {
      const view = await client.effectivePermissions({ userId, project: slug });
      if (view.source === 'unavailable') throw new ControlPlaneUnavailableError('the control plane did not answer');
      permissions = view.permissions;
    } catch (error) {
      if (error instanceof ControlPlaneNotFoundError) {
        throw new ApiError(400, 'user_not_found', `The control plane has no user "${excerpt(userId)}" (user_id is a control-plane user id).`, {
          fields: { user_id: ['not a user'] },
        });
      }
      if (error instanceof ControlPlaneUnavailableError) {
        if (uncheckedWhenUnavailable) return;
        throw new ApiError(503, 'control_plane_unavailable', 'The control plane cannot be asked about the person right now; try again shortly.');
      }
      throw error;
    }
    if (permissions.length === 0) {
      throw new ApiError(400, 'user_not_in_project', `The user "${excerpt(userId)}" has no role on project "${excerpt(slug)}" in the control plane; give them one there first.`, {
        fields: { user_id: ['not a member of the project'] },
      });
    }
  }

  /** For project sync: the project now, or null; throws ControlPlaneUnavailableError so that the delivery is retried. */
  findProject(query: { id: string } | { slug: string }): Promise<ProjectRecord | null> {
    if (!this.client) throw new ControlPlaneUnavailableError('the gateway is not configured for the control plane');
    return this.client.findProject(query);
  }

  private async answer<T>(ask: () => Promise<T>): Promise<T> {
    try {
      return await ask();
    } catch (error) {
      if (error instanceof ControlPlaneUnavailableError) {
        throw new ApiError(503, 'control_plane_unavailable', 'The control plane cannot be asked about the project right now; try again shortly.');
      }
      throw error;
    }
  }
}
