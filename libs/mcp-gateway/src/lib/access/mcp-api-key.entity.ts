import { Column, Entity } from 'typeorm';
import { ApiKeyColumns } from '@arbor/api-keys';

/** A gateway API key for MCP clients, bound to one control-plane project (it reaches that project's virtual servers); only its SHA-256 is stored. */
@Entity({ name: 'mcp_api_keys' })
export class McpApiKey extends ApiKeyColumns {
  @Column({ type: 'text', default: '' })
  name!: string;

  /** The only tools it sees and calls (names as its servers expose them); null: every tool. */
  @Column({ type: 'text', array: true, nullable: true })
  tools!: string[] | null;
}
