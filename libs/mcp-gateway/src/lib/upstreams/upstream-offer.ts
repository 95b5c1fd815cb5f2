import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CredentialCaller } from '../credentials/credential-caller';
import type { Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';

// What the pool and the kinds of upstream behind it (MCP servers, A2A agents) share.

/** What an upstream offers, as it names it. */
export interface UpstreamOffer {
  capabilities: ServerCapabilities;
  tools: readonly Tool[];
  resources: readonly Resource[];
  resourceTemplates: readonly ResourceTemplate[];
  prompts: readonly Prompt[];
  /** Whether its messages during a call come on that call's own stream, so a caller without a session gets them. */
  logsPerCall?: boolean;
  /** Not loaded yet (no connection has listed it so far): what it offers is not known, only that it is empty for now. */
  unloaded?: true;
}

export interface ForwardOptions {
  signal?: AbortSignal;
  onprogress?: RequestOptions['onprogress'];
  /**
   * The other notifications the upstream sends during the call on the call's own stream (log
   * messages): told apart from every other caller's even on the pool's shared session. Needs a
   * transport with streams of its own per call (`ownCallStreams`); others keep them to their session.
   */
  onnotification?: (notification: UpstreamNotification) => void;
  /** The virtual server the call is made for (null: `/mcp`), for the metrics. */
  server?: string | null;
  /**
   * Whom the call is made for: the grant's principal (what audit lines go by) and, for a person,
   * their own token. An upstream or agent with per-caller auth is called with this caller's
   * credentials and no one else's.
   */
  caller?: CredentialCaller;
  /** The client takes URL-mode elicitations (2025-11-25): a person who must connect an account is asked with one. */
  elicitsUrls?: boolean;
}

export interface UpstreamNotification {
  method: string;
  params?: Record<string, unknown>;
}
