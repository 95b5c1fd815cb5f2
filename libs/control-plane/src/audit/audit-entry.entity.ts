import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Who did what, when, to which project. Never holds a secret value. */
@Entity({ name: 'audit_log' })
export class AuditEntry {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @CreateDateColumn({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  /** `person`, `machine`, or `system` for the control plane itself. */
  @Column({ name: 'actor_kind', type: 'text' })
  actorKind!: string;

  /** The OIDC subject of the caller. */
  @Column({ name: 'actor_subject', type: 'text' })
  actorSubject!: string;

  /** The client the caller used (azp); for machines, the machine's identity. */
  @Column({ name: 'actor_client_id', type: 'text', nullable: true })
  actorClientId!: string | null;

  /** e.g. `project.created`, `repository_secret.read`. */
  @Column({ type: 'text' })
  action!: string;

  /** Kept without a foreign key so the history outlives the project. */
  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  @Column({ name: 'target_id', type: 'text', nullable: true })
  targetId!: string | null;

  @Column({ type: 'jsonb', default: {} })
  details!: Record<string, unknown>;
}
