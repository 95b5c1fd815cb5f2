export { can, formatPermissionKey, keysForProject, parsePermissionKey, PERMISSION_KEY_PATTERN, projectsWhere, rolesIn } from './permission-keys';
export type { GroupedPermissionsView, PermissionKey, SinglePermissionsView } from './permission-keys';
