import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AdminResolver, Principal } from '@arbor/auth';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { AccessVersion } from '../access/access-version';

/**
 * Administrators granted in the control plane (users.is_admin), besides the realm role. Asked on
 * every authenticated request of a person without the role, so answers are cached until the
 * access version moves: no database round trip per request.
 */
@Injectable()
export class ControlPlaneAdmins implements AdminResolver {
  private readonly cache = new LRUCache<string, { version: number; isAdmin: boolean }>({ max: 50_000 });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accessVersion: AccessVersion,
  ) {}

  async isAdmin(principal: Principal): Promise<boolean> {
    if (principal.kind !== 'person') return false;
    const version = this.accessVersion.current;
    const cached = this.cache.get(principal.subject);
    if (cached && cached.version === version) return cached.isAdmin;
    // A user pre-created by email is theirs before their first sign-in links it (UserDirectory).
    const email = principal.email?.toLowerCase() ?? null;
    const rows = (await this.dataSource.query(
      `select is_admin and not disabled as admin from users
       where subject = $1 or (subject is null and email = $2)
       order by subject is null
       limit 1`,
      [principal.subject, email],
    )) as { admin: boolean }[];
    const isAdmin = rows[0]?.admin === true;
    this.cache.set(principal.subject, { version, isAdmin });
    return isAdmin;
  }
}
