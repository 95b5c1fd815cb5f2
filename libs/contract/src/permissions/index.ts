export { can, formatPermissionKey, keysForProject, parsePermissionKey, rolesIn } from './permission-keys';
export type { GroupedPermissionsView, PermissionKey, SinglePermissionsView } from './permission-keys';
