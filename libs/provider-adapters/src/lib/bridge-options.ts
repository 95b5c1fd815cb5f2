/** How a bridge to chat completions (from Responses, from Messages) treats what chat cannot carry. */
export interface BridgeOptions {
  /** The provider of the deployment, for the refusal's words. */
  provider: string;
  /** drop_params in force for the call: what chat cannot carry is dropped instead of refused. */
  dropParams: boolean;
  /**
   * The chat parameters the target serves: a built-in tool it has natively (web search, when it
   * takes `web_search_options`) is mapped to it rather than dropped or refused.
   */
  params?: ReadonlySet<string>;
  /** Where what was dropped under drop_params is named (`tools.0 (web_search)`), for the client's warning header. */
  dropped?: string[];
}
