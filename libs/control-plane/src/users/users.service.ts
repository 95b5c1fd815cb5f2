import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { DataSource } from 'typeorm';
import { AccessVersion } from '../access/access-version';
import { AuditLog } from '../audit/audit.service';
import { User } from './user.entity';
import { UserDirectory } from './user-directory.service';
import { SelfLockout, UserExists, UserNotFound } from './users.exception';
import { isUniqueViolation } from '@arbor/platform';

export interface UserFilter {
  email?: string;
  q?: string;
  limit: number;
  /** Users after this one in the listing's order (oldest first). */
  afterId?: string;
}

export interface UserPage {
  users: User[];
  /** The last id of this page when there is a next one. */
  nextAfterId: string | null;
}

export interface NewUser {
  email: string;
  displayName?: string;
  admin?: boolean;
}

export interface UserChanges {
  disabled?: boolean;
  admin?: boolean;
  displayName?: string;
}

/** Administration of users: listing, pre-creating by email, disabling, granting administration. */
@Injectable()
export class UsersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly accessVersion: AccessVersion,
    private readonly directory: UserDirectory,
  ) {}

  async list(filter: UserFilter): Promise<UserPage> {
    const query = this.dataSource
      .getRepository(User)
      .createQueryBuilder('u')
      .orderBy('u.createdAt', 'ASC')
      .addOrderBy('u.id', 'ASC')
      .limit(filter.limit + 1);
    // Keyset paging on (created_at, id), read from the row itself so no precision is lost in the cursor.
    if (filter.afterId) query.andWhere('(u.created_at, u.id) > (select created_at, id from users where id = :afterId)', { afterId: filter.afterId });
    if (filter.email) query.andWhere('u.email = :email', { email: filter.email.toLowerCase() });
    if (filter.q) {
      // The search text is literal: % and _ match themselves.
      const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query.andWhere('(u.email ilike :pattern or u.displayName ilike :pattern)', { pattern });
    }
    const rows = await query.getMany();
    const users = rows.slice(0, filter.limit);
    return { users, nextAfterId: rows.length > filter.limit ? users[users.length - 1].id : null };
  }

  async get(id: string): Promise<User> {
    const user = await this.dataSource.getRepository(User).findOneBy({ id });
    if (!user) throw new UserNotFound(id);
    return user;
  }

  async create(actor: Principal, input: NewUser): Promise<User> {
    const email = input.email.toLowerCase();
    let user: User;
    try {
      user = await this.dataSource.transaction(async (manager) => {
        const created = await manager.save(manager.create(User, { email, displayName: input.displayName ?? '', isAdmin: input.admin ?? false }));
        await this.audit.record(manager, actor, 'user.created', { targetId: created.id, details: { email, admin: created.isAdmin } });
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new UserExists(email);
      throw error;
    }
    // An effective-permissions answer for this id goes from 404 to an empty set.
    this.accessVersion.bump();
    return this.get(user.id);
  }

  async update(actor: Principal, id: string, changes: UserChanges): Promise<User> {
    const self = actor.kind === 'person' ? await this.directory.forPrincipal(actor) : undefined;
    await this.get(id);
    const { accessChanged } = await this.dataSource.transaction(async (manager) => {
      const user = await manager.findOneOrFail(User, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (self?.id === id) {
        if (changes.admin === false && user.isAdmin) throw new SelfLockout('admin');
        if (changes.disabled === true && !user.disabled) throw new SelfLockout('disabled');
      }
      const diff: Record<string, { from: unknown; to: unknown }> = {};
      if (changes.disabled !== undefined && changes.disabled !== user.disabled) diff['disabled'] = { from: user.disabled, to: changes.disabled };
      if (changes.admin !== undefined && changes.admin !== user.isAdmin) diff['admin'] = { from: user.isAdmin, to: changes.admin };
      if (changes.displayName !== undefined && changes.displayName !== user.displayName) {
        diff['display_name'] = { from: user.displayName, to: changes.displayName };
      }
      if (Object.keys(diff).length === 0) return { accessChanged: false };
      await manager.update(
        User,
        { id },
        {
          disabled: changes.disabled ?? user.disabled,
          isAdmin: changes.admin ?? user.isAdmin,
          displayName: changes.displayName ?? user.displayName,
        },
      );
      await this.audit.record(manager, actor, 'user.updated', { targetId: id, details: { changes: diff } });
      return { accessChanged: 'disabled' in diff || 'admin' in diff };
    });
    if (accessChanged) this.accessVersion.bump();
    return this.get(id);
  }
}
