import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A gateway API key for MCP clients, bound to one control-plane project; only its SHA-256 is stored. */
@Entity({ name: 'mcp_api_keys' })
export class McpApiKey {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Lower-case hex SHA-256 of the key. */
  @Column({ name: 'key_hash', type: 'text', unique: true })
  keyHash!: string;

  /** Non-secret, for display: `sk-arbor-mcp-…abcd`. */
  @Column({ name: 'key_hint', type: 'text' })
  keyHint!: string;

  /** Control-plane project slug: the key reaches that project's virtual servers. */
  @Column({ type: 'text' })
  project!: string;

  /** The control plane's id of the project; null until a sync or a check matched it. */
  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  /** When project sync learned that the control plane deleted the project. */
  @Column({ name: 'project_deleted_at', type: 'timestamptz', nullable: true })
  projectDeletedAt!: Date | null;

  @Column({ type: 'text', default: '' })
  name!: string;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
