export { ControlPlaneModule } from './control-plane.module';
export { CurrentCaller, CurrentPermissions, PermittedProjects, RequirePermission } from './require-permission.decorator';
export { PermissionGuard } from './permission.guard';
export { projectInBody, projectInQuery } from './project-locators';
export type {
  ControlPlaneModuleOptions,
  ControlPlaneNotConfiguredOptions,
  GuardedRequest,
  MachineAuthorizer,
  OwnCredentialAuthorizer,
  PermissionRequirement,
  ProjectLocator,
  ProjectResolver,
  RequirePermissionOptions,
  RouteProject,
} from './control-plane.options';
