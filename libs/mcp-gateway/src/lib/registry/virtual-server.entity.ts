import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ItemRole, UpstreamSelection } from './server-registry';
import type { RegistrySource } from './upstream.entity';

/** A virtual server (`/servers/{id}/mcp`) of a control-plane project. */
@Entity({ name: 'virtual_servers' })
export class VirtualServer {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** Control-plane project slug. */
  @Column({ type: 'text' })
  project!: string;

  /** The control plane's id of the project; null until a sync or a check matched it. */
  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  /** When project sync learned that the control plane deleted the project. */
  @Column({ name: 'project_deleted_at', type: 'timestamptz', nullable: true })
  projectDeletedAt!: Date | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** What it takes from each upstream, in order. */
  @Column({ type: 'jsonb' })
  selections!: UpstreamSelection[];

  /** The guardrails (of MCPGW_CONFIG) on its tool calls, besides the default_on ones. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  guardrails!: string[];

  /** The role each tool needs, by the name it is exposed under (tool roles). */
  @Column({ name: 'tool_roles', type: 'jsonb', default: () => "'{}'" })
  toolRoles!: Record<string, ItemRole>;

  @Column({ name: 'resource_roles', type: 'jsonb', default: () => "'{}'" })
  resourceRoles!: Record<string, ItemRole>;

  @Column({ name: 'prompt_roles', type: 'jsonb', default: () => "'{}'" })
  promptRoles!: Record<string, ItemRole>;

  /** `{tool: {per_minute}}`, as the admin API and MCPGW_CONFIG write it. */
  @Column({ name: 'tool_rate_limits', type: 'jsonb', default: () => "'{}'" })
  toolRateLimits!: Record<string, { per_minute: number }>;

  /** The audit of its tool calls keeps arguments and results (as the guardrails left them). */
  @Column({ name: 'audit_payloads', type: 'boolean', default: false })
  auditPayloads!: boolean;

  @Column({ type: 'text' })
  source!: RegistrySource;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
