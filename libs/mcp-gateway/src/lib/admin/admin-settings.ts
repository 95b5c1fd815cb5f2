/** What the admin API takes from McpRegistryModule's options. */
export class McpAdminSettings {
  constructor(
    /** The control-plane settings the gateway lacks, named in the 503; empty when it has them all. */
    readonly missingControlPlaneSettings: readonly string[],
    /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS. */
    readonly allowLinkLocal: boolean,
  ) {}
}
