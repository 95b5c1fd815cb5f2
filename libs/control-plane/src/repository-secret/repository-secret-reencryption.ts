import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit.service';
import { RepositorySecret } from './repository-secret.entity';
import { SecretSealer } from '@arbor/contract';

export interface ReencryptionReport {
  /** Re-encrypted under the current key by this run. */
  reencrypted: number;
  /** Still under another key after this run (0: the old keys can be dropped). */
  remaining: number;
  /** Key ids of remaining secrets that no configured key opens, with how many each. */
  missingKeys: Record<string, number>;
}

/**
 * The second half of a master key rotation (docs/operations.md): at start, every repository
 * token still under a previous key is re-encrypted under CP_SECRETS_MASTER_KEY, each in its
 * own transaction with an audit entry. The value does not change, so products are not told and
 * `updated_at` stays. It never stops the start: what it cannot do, it logs.
 */
@Injectable()
export class RepositorySecretReencryption implements OnApplicationBootstrap {
  private readonly logger = new Logger('repository-secret');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: SecretSealer,
    private readonly audit: AuditLog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.reencryptUnderCurrentKey();
    } catch (error) {
      this.logger.error(`could not re-encrypt repository tokens under the current master key (${messageOf(error)}); the next start tries again`);
    }
  }

  async reencryptUnderCurrentKey(): Promise<ReencryptionReport> {
    const current = this.cipher.currentKeyId;
    const stale = (await this.dataSource.query('select project_id, key_id from repository_secrets where key_id <> $1 order by project_id', [current])) as {
      project_id: string;
      key_id: string;
    }[];
    let reencrypted = 0;
    for (const { project_id: projectId, key_id: keyId } of stale) {
      if (!this.cipher.knows(keyId)) continue;
      try {
        if (await this.reencrypt(projectId)) reencrypted += 1;
      } catch (error) {
        this.logger.error(`could not re-encrypt the repository token of project ${projectId} under master key ${keyId}: ${messageOf(error)}`);
      }
    }

    const left = (await this.dataSource.query('select key_id, count(*)::int as count from repository_secrets where key_id <> $1 group by key_id order by key_id', [current])) as {
      key_id: string;
      count: number;
    }[];
    const remaining = left.reduce((sum, row) => sum + row.count, 0);
    const missingKeys = Object.fromEntries(left.filter((row) => !this.cipher.knows(row.key_id)).map((row) => [row.key_id, row.count]));
    this.logger.log(`repository tokens under master key ${current}: ${reencrypted} re-encrypted now, ${remaining} remain under other keys`);
    if (Object.keys(missingKeys).length > 0) {
      this.logger.error(
        `repository tokens under master keys that are not configured (key id: count): ${Object.entries(missingKeys)
          .map(([keyId, count]) => `${keyId}: ${count}`)
          .join(', ')}; reading them answers 500 master_key_missing until the old key is put in CP_SECRETS_PREVIOUS_MASTER_KEYS`,
      );
    }
    return { reencrypted, remaining, missingKeys };
  }

  /** False when another writer got there first (the token was replaced or removed meanwhile). */
  private async reencrypt(projectId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const secret = await manager.findOne(RepositorySecret, { where: { projectId }, lock: { mode: 'pessimistic_write' } });
      if (!secret || secret.keyId === this.cipher.currentKeyId) return false;
      const sealed = this.cipher.seal(this.cipher.open(secret, projectId), projectId);
      // Raw SQL: the entity's update would move updated_at, and the value has not changed.
      await manager.query('update repository_secrets set key_id = $2, nonce = $3, ciphertext = $4, auth_tag = $5 where project_id = $1', [
        projectId,
        sealed.keyId,
        sealed.nonce,
        sealed.ciphertext,
        sealed.authTag,
      ]);
      await this.audit.recordBySystem(manager, 'repository_secret.reencrypted', {
        projectId,
        targetId: projectId,
        details: { previous_key_id: secret.keyId, key_id: sealed.keyId },
      });
      return true;
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
