import { DynamicModule, Module } from '@nestjs/common';
import { ADMIN_RESOLVER, AuthModule } from '@arbor/auth';
import { ControlPlaneConfig } from '@arbor/config';
import { OUTBOX_ENTITIES, OUTBOX_MIGRATIONS } from '@arbor/outbox';
import { DatabaseModule, OpenApiModule, PlatformModule, ServiceDefinition } from '@arbor/platform';
import { AuditEntry } from './audit/audit-entry.entity';
import { AuditModule } from './audit/audit.module';
import { ControlPlaneCoreModule } from './control-plane-core.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { MeModule } from './me/me.module';
import { CreateControlPlaneSchema1763700000100 } from './migrations/1763700000100-CreateControlPlaneSchema';
import { AddUsersIdentityProviderAdmin1764100000100 } from './migrations/1764100000100-AddUsersIdentityProviderAdmin';
import { AddWorkspaceLocale1764100000200 } from './migrations/1764100000200-AddWorkspaceLocale';
import { PermissionGrant } from './permissions/permission-grant.entity';
import { PermissionsModule } from './permissions/permissions.module';
import { ProductsModule } from './products/products.module';
import { Project } from './projects/project.entity';
import { ProjectsModule } from './projects/projects.module';
import { Repository } from './repositories/repository.entity';
import { RepositoriesModule } from './repositories/repositories.module';
import { RepositorySecret } from './repository-secret/repository-secret.entity';
import { RepositorySecretModule } from './repository-secret/repository-secret.module';
import { SyncModule } from './sync/sync.module';
import { ControlPlaneAdmins } from './users/control-plane-admins';
import { User } from './users/user.entity';
import { UsersModule } from './users/users.module';
import { WebUiModule, WebUiModuleOptions } from './web-ui/web-ui.module';
import { Workspace } from './workspace/workspace.entity';
import { WorkspaceModule } from './workspace/workspace.module';

export const CONTROL_PLANE_ENTITIES = [User, Workspace, Project, Repository, RepositorySecret, PermissionGrant, AuditEntry, ...OUTBOX_ENTITIES];
export const CONTROL_PLANE_MIGRATIONS = [...OUTBOX_MIGRATIONS, CreateControlPlaneSchema1763700000100, AddUsersIdentityProviderAdmin1764100000100, AddWorkspaceLocale1764100000200];

@Module({})
export class ControlPlaneApiModule {
  static forConfig(config: ControlPlaneConfig, webUi: WebUiModuleOptions = {}): DynamicModule {
    return {
      module: ControlPlaneApiModule,
      imports: [
        // By its contract the control plane's /readyz does not check the database.
        PlatformModule.forService(config, { readiness: 'static' }),
        DatabaseModule.forRoot({
          url: config.CP_DATABASE_URL,
          variable: 'CP_DATABASE_URL',
          applicationName: 'control-plane',
          entities: CONTROL_PLANE_ENTITIES,
          migrations: CONTROL_PLANE_MIGRATIONS,
        }),
        AuthModule.forRoot({ issuer: config.CP_OIDC_ISSUER_URL, audience: config.CP_OIDC_AUDIENCE }),
        ControlPlaneCoreModule,
        PermissionsModule,
        ProjectsModule,
        RepositoriesModule,
        RepositorySecretModule,
        UsersModule,
        MeModule,
        WorkspaceModule,
        ProductsModule,
        SyncModule,
        DashboardModule,
        AuditModule,
        WebUiModule.forRoot(webUi),
        // Last, so the document it builds at start describes every controller above.
        OpenApiModule.forService({
          title: 'Arbor control plane',
          description:
            'Users, permissions, projects, repositories and their encrypted repository tokens, and the shell endpoints shared by the suite. ' +
            'Every error answers `{"error": {"code", "message", "details?"}}` (schema ErrorBody). ' +
            'Bearer tokens come from the OIDC issuer (CP_OIDC_ISSUER_URL) with the audience CP_OIDC_AUDIENCE.',
        }),
      ],
      providers: [{ provide: ADMIN_RESOLVER, useExisting: ControlPlaneAdmins }],
    };
  }
}

export const controlPlaneService: ServiceDefinition<ControlPlaneConfig> = {
  schema: ControlPlaneConfig,
  module: (config) => ControlPlaneApiModule.forConfig(config),
  corsOrigins: (config) => config.corsOrigins,
};

/** The control plane serving the built web UI from `webRoot` at `/` (the app's main.ts). */
export function controlPlaneServiceWithWebUi(webRoot: string): ServiceDefinition<ControlPlaneConfig> {
  return { ...controlPlaneService, module: (config) => ControlPlaneApiModule.forConfig(config, { webRoot }) };
}
