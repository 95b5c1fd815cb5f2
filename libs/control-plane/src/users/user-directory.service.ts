import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ADMIN_ROLE, Principal } from '@arbor/auth';
import { DataSource } from 'typeorm';
import { AccessVersion } from '../access/access-version';
import { User } from './user.entity';

/**
 * The control plane's record of the person behind a token. The first sign-in provisions it from
 * the token's claims, or links a user an administrator pre-created with the same email.
 */
@Injectable()
export class UserDirectory {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accessVersion: AccessVersion,
  ) {}

  async forPrincipal(principal: Principal): Promise<User> {
    const users = this.dataSource.getRepository(User);
    const identityProviderAdmin = principal.roles.includes(ADMIN_ROLE);
    const known = await users.findOneBy({ subject: principal.subject });
    if (known) return known.identityProviderAdmin === identityProviderAdmin ? known : this.noteIdentityProviderAdmin(known, identityProviderAdmin);
    const email = principal.email?.toLowerCase() ?? null;
    const name = principal.name ?? principal.username ?? email ?? principal.subject;
    if (email) {
      // A user an administrator pre-created by email: this sign-in claims it.
      const claimed = await users
        .createQueryBuilder()
        .update()
        .set({ subject: principal.subject, identityProviderAdmin, displayName: () => `case when display_name = '' then :name else display_name end` })
        .setParameter('name', name)
        .where('email = :email and subject is null', { email })
        .returning('id')
        .execute();
      const rows = claimed.raw as { id: string }[];
      if (rows.length > 0) {
        // The subject now names a user with grants and maybe administration: cached answers are stale.
        this.accessVersion.bump();
        return users.findOneByOrFail({ id: rows[0].id });
      }
    }
    // Concurrent first requests of one person: the subject's unique index keeps a single row.
    // An email already used by another subject is left off rather than refusing the sign-in.
    const inserted = (await this.dataSource.query(
      `insert into users (subject, email, display_name, idp_admin)
       select $1, case when exists (select 1 from users where email = $2) then null else $2 end, $3, $4
       on conflict (subject) do nothing
       returning id`,
      [principal.subject, email, name, identityProviderAdmin],
    )) as { id: string }[];
    // An answer for this subject goes from "unknown" to an empty set.
    if (inserted.length > 0) this.accessVersion.bump();
    return users.findOneByOrFail({ subject: principal.subject });
  }

  /** The realm role came or went in the identity provider: the Users page says so (written only on a change). */
  private async noteIdentityProviderAdmin(user: User, identityProviderAdmin: boolean): Promise<User> {
    await this.dataSource.getRepository(User).update({ id: user.id }, { identityProviderAdmin });
    return { ...user, identityProviderAdmin };
  }
}
