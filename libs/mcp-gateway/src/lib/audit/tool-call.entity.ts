import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ToolCallOutcome } from './tool-call-audit';

/** One tool call through the gateway (append-only: the table refuses updates and deletes). */
@Entity({ name: 'mcp_tool_calls' })
export class ToolCallRow {
  /** bigint, as text: ids outgrow JavaScript's safe integers before the table outgrows PostgreSQL. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'called_at', type: 'timestamptz' })
  calledAt!: Date;

  /** The virtual server; null for `/mcp`. */
  @Column({ name: 'server_id', type: 'text', nullable: true })
  serverId!: string | null;

  /** The projects whose operators may read it: the server's, or on `/mcp` those of the caller's servers that select the tool's upstream. */
  @Column({ type: 'text', array: true })
  projects!: string[];

  @Column({ name: 'caller_kind', type: 'text' })
  callerKind!: 'person' | 'key';

  /** The person's OIDC subject, or the API key's id. */
  @Column({ name: 'caller_id', type: 'text' })
  callerId!: string;

  /** The person's user name, or the key's name. */
  @Column({ name: 'caller_name', type: 'text' })
  callerName!: string;

  @Column({ type: 'text', nullable: true })
  upstream!: string | null;

  /** As the caller named it. */
  @Column({ type: 'text' })
  tool!: string;

  @Column({ type: 'text' })
  outcome!: ToolCallOutcome;

  @Column({ name: 'duration_ms', type: 'double precision' })
  durationMs!: number;

  @Column({ name: 'error_code', type: 'integer', nullable: true })
  errorCode!: number | null;

  /** Only with the server's `audit_payloads`, as the guardrails left them. */
  @Column({ type: 'jsonb', nullable: true })
  arguments!: unknown;

  @Column({ type: 'jsonb', nullable: true })
  result!: unknown;
}
