export { can, formatPermissionKey, keysForProject, parsePermissionKey, projectsWhere, rolesIn } from './permission-keys';
export type { GroupedPermissionsView, PermissionKey, SinglePermissionsView } from './permission-keys';
