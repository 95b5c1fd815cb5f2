export { ControlPlaneModule } from './control-plane.module';
export { CurrentCaller, CurrentPermissions, RequirePermission } from './require-permission.decorator';
export { PermissionGuard } from './permission.guard';
export type { ControlPlaneModuleOptions, MachineAuthorizer, PermissionRequirement, RouteProject } from './control-plane.options';
