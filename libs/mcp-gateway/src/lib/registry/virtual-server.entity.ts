import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { UpstreamSelection } from './server-registry';
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

  @Column({ type: 'text' })
  source!: RegistrySource;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
