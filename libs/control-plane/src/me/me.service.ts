import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { parsePermissionKey } from '@arbor/contract';
import { DataSource, QueryFailedError } from 'typeorm';
import { AuditLog } from '../audit/audit.service';
import { EffectivePermissionsService } from '../permissions/effective-permissions.service';
import { Project } from '../projects/project.entity';
import { ProjectNotFound } from '../projects/projects.exception';
import { Theme, User } from '../users/user.entity';
import { UserDirectory } from '../users/user-directory.service';
import { DefaultProjectResponse, MeResponse } from './dto/me.response';
import { PersonOnly, ProjectNotVisible, UserDisabled } from './me.exception';

/**
 * The shell endpoints: the signed-in person's profile, admin flag, permissions, theme and default
 * project, shared by every product UI. The first call provisions the person.
 */
@Injectable()
export class MeService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly directory: UserDirectory,
    private readonly effectivePermissions: EffectivePermissionsService,
    private readonly audit: AuditLog,
  ) {}

  async profile(principal: Principal): Promise<MeResponse> {
    const user = await this.person(principal);
    const { workspace, projects } = await this.effectivePermissions.grouped(user.id);
    const admin = isAdmin(principal, user);
    const defaultProject = user.defaultProjectId
      ? await this.dataSource.getRepository(Project).findOne({ where: { id: user.defaultProjectId }, select: { id: true, slug: true, name: true } })
      : null;
    const visible = defaultProject !== null && (seesEveryProject(admin, workspace) || Object.hasOwn(projects, defaultProject.slug));
    return {
      id: user.id,
      subject: principal.subject,
      email: user.email,
      display_name: user.displayName,
      admin,
      disabled: user.disabled,
      theme: user.theme,
      default_project: visible ? { id: defaultProject.id, slug: defaultProject.slug, name: defaultProject.name } : null,
      permissions: { workspace, projects },
    };
  }

  /** The projects the person may see (see seesEveryProject), by slug, with the keys they hold on each. */
  async projects(principal: Principal): Promise<MyProject[]> {
    const user = await this.person(principal);
    const { workspace, projects } = await this.effectivePermissions.grouped(user.id);
    const everyProject = seesEveryProject(isAdmin(principal, user), workspace);
    const rows = await this.dataSource.getRepository(Project).find({ select: { id: true, slug: true, name: true }, order: { slug: 'ASC' } });
    return rows
      .filter((project) => everyProject || Object.hasOwn(projects, project.slug))
      .map((project) => ({ id: project.id, slug: project.slug, name: project.name, permissions: projects[project.slug] ?? [] }));
  }

  async setTheme(principal: Principal, theme: Theme): Promise<MeResponse> {
    const user = await this.activePerson(principal);
    if (user.theme !== theme) {
      await this.dataSource.transaction(async (manager) => {
        await manager.update(User, { id: user.id }, { theme });
        await this.audit.record(manager, principal, 'user.theme_changed', { targetId: user.id, details: { from: user.theme, to: theme } });
      });
    }
    return this.profile(principal);
  }

  /** A project the person may see: any for one who sees every project, else one their grouped permissions list. */
  async setDefaultProject(principal: Principal, projectId: string | null): Promise<MeResponse> {
    const user = await this.activePerson(principal);
    if (projectId !== null) {
      const project = await this.dataSource.getRepository(Project).findOne({ where: { id: projectId }, select: { id: true, slug: true } });
      if (!project) throw new ProjectNotFound(projectId);
      const { workspace, projects } = await this.effectivePermissions.grouped(user.id);
      if (!seesEveryProject(isAdmin(principal, user), workspace) && !Object.hasOwn(projects, project.slug)) throw new ProjectNotVisible(projectId);
    }
    if (user.defaultProjectId !== projectId) {
      await this.dataSource
        .transaction(async (manager) => {
          await manager.update(User, { id: user.id }, { defaultProjectId: projectId });
          await this.audit.record(manager, principal, 'user.default_project_changed', {
            targetId: user.id,
            projectId,
            details: { from: user.defaultProjectId, to: projectId },
          });
        })
        .catch((error: unknown) => {
          // Deleted between the check and the write (foreign_key_violation).
          if (projectId !== null && error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23503') {
            throw new ProjectNotFound(projectId);
          }
          throw error;
        });
    }
    return this.profile(principal);
  }

  private person(principal: Principal): Promise<User> {
    if (principal.kind !== 'person') throw new PersonOnly();
    return this.directory.forPrincipal(principal);
  }

  private async activePerson(principal: Principal): Promise<User> {
    const user = await this.person(principal);
    if (user.disabled) throw new UserDisabled();
    return user;
  }
}

export interface MyProject extends DefaultProjectResponse {
  permissions: string[];
}

/** The realm role, or administration granted in the control plane to a user who is not disabled. */
function isAdmin(principal: Principal, user: User): boolean {
  return principal.isAdmin || (user.isAdmin && !user.disabled);
}

/**
 * Whether the person may see every project: an administrator, or someone holding a role key at
 * workspace level, which the products honour on every project. A workspace sign-in key alone
 * grants nothing on a project, so it shows none.
 */
function seesEveryProject(admin: boolean, workspace: readonly string[]): boolean {
  return admin || workspace.some((key) => parsePermissionKey(key)?.role !== undefined);
}
