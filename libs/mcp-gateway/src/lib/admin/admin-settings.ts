/** What the admin API takes from McpRegistryModule's options. */
export class McpAdminSettings {
  constructor(
    /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS. */
    readonly allowLinkLocal: boolean,
  ) {}
}
