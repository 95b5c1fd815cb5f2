import { Injectable } from '@nestjs/common';
import { ControlPlaneConfig } from '@arbor/config';
import { formatPermissionKey, parsePermissionKey, rolesIn } from '@arbor/contract';

/** The roles a product's role keys may name (`<product>.<role>`); the seed names these two. */
export const PRODUCT_ROLES = ['operator', 'viewer'] as const;
export type ProductRole = (typeof PRODUCT_ROLES)[number];

export interface ProductRoleKey {
  key: string;
  role: ProductRole;
}

export interface Product {
  key: string;
  /** The product's sign-in key; equal to its key. */
  signInKey: string;
  roles: ProductRoleKey[];
  /** CP_SUITE_<PRODUCT>_URL, or null when only its API URL is configured. */
  suiteUrl: string | null;
  /** Whether CP_<PRODUCT>_API_URL is set, which turns project sync to it on. */
  syncEnabled: boolean;
}

/** What a set of effective keys means for one product. */
export interface ProductAccess {
  /** The set holds the product's sign-in key. */
  signedIn: boolean;
  /** Roles that count: only when signed in, because a role key has meaning only with the sign-in key. */
  roles: ProductRole[];
}

/**
 * The products this control plane manages: every product configured through
 * CP_SUITE_<PRODUCT>_URL or CP_<PRODUCT>_API_URL (the control plane itself is not one), read once
 * from the validated configuration. Grants are validated against it.
 *
 * Effective permissions are returned raw: a role key is stored and answered even without the
 * product's sign-in key. Consumers decide with `access()`: a role counts only together with the
 * sign-in key, as the contract says a product checks both.
 */
@Injectable()
export class ProductCatalog {
  private readonly products: readonly Product[];
  private readonly byKey: ReadonlyMap<string, Product>;

  constructor(config: ControlPlaneConfig) {
    this.products = config.productKeys.map((key) => ({
      key,
      signInKey: key,
      roles: PRODUCT_ROLES.map((role) => ({ key: formatPermissionKey(key, role), role })),
      suiteUrl: config.suiteUrls[key] ?? null,
      syncEnabled: key in config.syncTargets,
    }));
    this.byKey = new Map(this.products.map((product) => [product.key, product]));
  }

  list(): readonly Product[] {
    return this.products;
  }

  /** A well-formed key (the contract's grammar, which the database checks too) of a known product and, for a role key, a known role. */
  isKnownKey(key: string): boolean {
    const parsed = parsePermissionKey(key);
    if (!parsed || !this.byKey.has(parsed.product)) return false;
    return parsed.role === undefined || (PRODUCT_ROLES as readonly string[]).includes(parsed.role);
  }

  /** The keys of `keys` that `isKnownKey` refuses, in their given order, without repeats. */
  unknownKeys(keys: Iterable<string>): string[] {
    return [...new Set(keys)].filter((key) => !this.isKnownKey(key));
  }

  /** What `keys` (an effective set) lets its holder do in `product`. */
  access(keys: readonly string[], product: string): ProductAccess {
    const roles = rolesIn(keys, product);
    return { signedIn: keys.includes(product), roles: PRODUCT_ROLES.filter((role) => roles.includes(role)) };
  }
}
