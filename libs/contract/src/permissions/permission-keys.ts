/**
 * Permission keys as the control plane hands them out: `<product>` is the product's sign-in key,
 * `<product>.<role>` a role key, which counts only together with the sign-in key of its product.
 */

/**
 * A product key or a role: lower-case letters, digits and dashes, starting with a letter or a
 * digit. The control plane derives product keys from `CP_SUITE_<PRODUCT>_URL` (`3D_VIEWER` →
 * `3d-viewer`) and its database accepts exactly this, so every key it hands out parses here.
 */
const NAME = /^[a-z0-9][a-z0-9-]*$/;

/** The whole grammar of a permission key, `<product>` or `<product>.<role>`, as the control plane's database checks it. */
export const PERMISSION_KEY_PATTERN = '^[a-z0-9][a-z0-9-]*(\\.[a-z0-9][a-z0-9-]*)?$';

/**
 * A project slug as the control plane's projects table checks it: 1–64 lower-case letters, digits
 * and hyphens, no hyphen at either end. A product need not ask about a slug outside it: no such
 * project can exist.
 */
export const PROJECT_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export interface PermissionKey {
  /** `ai-gateway` in `ai-gateway.operator`. */
  readonly product: string;
  /** `operator` in `ai-gateway.operator`; absent for the sign-in key. */
  readonly role?: string;
}

/** The single view: `GET /api/v1/permissions/effective` without `group`. */
export interface SinglePermissionsView {
  user_id: string;
  /** Workspace keys plus the keys on the project asked for (if any). */
  permissions: string[];
}

/** The grouped view: `GET /api/v1/permissions/effective?group=projects`. */
export interface GroupedPermissionsView {
  user_id: string;
  /** Workspace-level keys. */
  workspace: string[];
  /** Project slug → keys granted on that project (workspace keys are not repeated). */
  projects: Record<string, string[]>;
}

/** `ai-gateway` → `{product: 'ai-gateway'}`, `ai-gateway.operator` → `{product, role}`; null for anything else. */
export function parsePermissionKey(key: string): PermissionKey | null {
  if (typeof key !== 'string') return null;
  const parts = key.split('.');
  if (parts.length > 2 || !parts.every((part) => NAME.test(part))) return null;
  return parts.length === 1 ? { product: parts[0] } : { product: parts[0], role: parts[1] };
}

/** The inverse of parsePermissionKey; throws on a product or role that could not be parsed back. */
export function formatPermissionKey(product: string, role?: string): string {
  if (!NAME.test(product)) throw new Error(`not a product key: ${JSON.stringify(product)}`);
  if (role === undefined) return product;
  if (!NAME.test(role)) throw new Error(`not a role: ${JSON.stringify(role)}`);
  return `${product}.${role}`;
}

/**
 * Whether `keys` let the holder use `product` (no role) or act as `role` in it. A role key alone
 * grants nothing: the product's sign-in key must be in the same set.
 */
export function can(keys: Iterable<string>, product: string, role?: string): boolean {
  const set = keys instanceof Set ? (keys as Set<string>) : new Set(keys);
  if (!set.has(formatPermissionKey(product))) return false;
  return role === undefined || set.has(formatPermissionKey(product, role));
}

/** The roles a set grants in `product` (empty without its sign-in key). */
export function rolesIn(keys: Iterable<string>, product: string): string[] {
  const list = [...keys];
  if (!list.includes(product)) return [];
  return list.flatMap((key) => {
    const parsed = parsePermissionKey(key);
    return parsed?.product === product && parsed.role !== undefined ? [parsed.role] : [];
  });
}

/** The keys that apply on one project of a grouped view: the workspace keys plus that project's. */
export function keysForProject(view: Pick<GroupedPermissionsView, 'workspace' | 'projects'>, projectSlug: string): string[] {
  return [...new Set([...view.workspace, ...(view.projects[projectSlug] ?? [])])];
}

/**
 * Where a grouped view lets the holder act as `role` in `product` (or just use it, without a
 * role): 'all' when the workspace keys grant it on every project, else the project slugs that do.
 */
export function projectsWhere(view: Pick<GroupedPermissionsView, 'workspace' | 'projects'>, product: string, role?: string): 'all' | string[] {
  if (can(view.workspace, product, role)) return 'all';
  return Object.keys(view.projects).filter((slug) => can(keysForProject(view, slug), product, role));
}
