export { can, formatPermissionKey, keysForProject, parsePermissionKey, PERMISSION_KEY_PATTERN, PROJECT_SLUG, projectsWhere, rolesIn } from './permission-keys';
export type { GroupedPermissionsView, PermissionKey, SinglePermissionsView } from './permission-keys';
