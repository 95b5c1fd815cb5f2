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

/** The actor of what the control plane does on its own, such as re-encrypting at start. */
export const CONTROL_PLANE_ACTOR = { kind: 'system', subject: 'control-plane' } as const;

/** Writes the audit log with the caller's EntityManager, inside the change's own transaction. */
@Injectable()
export class AuditLog {
  async record(manager: EntityManager, actor: Principal, action: string, facts: AuditFacts = {}): Promise<void> {
    await this.insert(manager, { kind: actor.kind, subject: actor.subject, clientId: actor.clientId ?? null }, action, facts);
  }

  /** An entry whose actor is the control plane itself (actor_kind `system`). */
  async recordBySystem(manager: EntityManager, action: string, facts: AuditFacts = {}): Promise<void> {
    await this.insert(manager, { ...CONTROL_PLANE_ACTOR, clientId: null }, action, facts);
  }

  private async insert(manager: EntityManager, actor: { kind: string; subject: string; clientId: string | null }, action: string, facts: AuditFacts): Promise<void> {
    await manager.insert(AuditEntry, {
      actorKind: actor.kind,
      actorSubject: actor.subject,
      actorClientId: actor.clientId,
      action,
      projectId: facts.projectId ?? null,
      targetId: facts.targetId ?? null,
      details: (facts.details ?? {}) as AuditEntry['details'] & object,
    });
  }
}
