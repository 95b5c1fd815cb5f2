import { Column, Entity } from 'typeorm';
import { ApiKeyColumns } from '@arbor/api-keys';

/** A gateway API key for MCP clients, bound to one control-plane project (it reaches that project's virtual servers); only its SHA-256 is stored. */
@Entity({ name: 'mcp_api_keys' })
export class McpApiKey extends ApiKeyColumns {
  @Column({ type: 'text', default: '' })
  name!: string;
}
