import { Injectable } from '@nestjs/common';
import { Principal } from '@arbor/auth';
import { EntityManager } from 'typeorm';
import { AuditEntry } from './audit-entry.entity';

export interface AuditFacts {
  projectId?: string | null;
  targetId?: string | null;
  /** Never a secret value. */
  details?: Record<string, unknown>;
}

/** Writes the audit log with the caller's EntityManager, inside the change's own transaction. */
@Injectable()
export class AuditLog {
  async record(manager: EntityManager, actor: Principal, action: string, facts: AuditFacts = {}): Promise<void> {
    await manager.insert(AuditEntry, {
      actorKind: actor.kind,
      actorSubject: actor.subject,
      actorClientId: actor.clientId ?? null,
      action,
      projectId: facts.projectId ?? null,
      targetId: facts.targetId ?? null,
      details: (facts.details ?? {}) as AuditEntry['details'] & object,
    });
  }
}
