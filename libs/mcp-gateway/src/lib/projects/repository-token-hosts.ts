import { excerpt } from '@arbor/platform';
import { hasPerCallHeaders, REPOSITORY_TOKEN_PLACEHOLDER } from '../upstreams/per-call-headers';

/** The setting that names the upstream hosts a project's repository token may be sent to. */
export const REPOSITORY_TOKEN_HOSTS_SETTING = 'MCPGW_REPOSITORY_TOKEN_HOSTS';

/** What the allow-list judges of an upstream: where it is and what it asks for. */
export interface TokenAskingUpstream {
  name: string;
  url: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * The upstream hosts an administrator approved to receive `{{project.repository_token}}`
 * (MCPGW_REPOSITORY_TOKEN_HOSTS). A workspace operator registers upstreams at any address, and
 * the control plane keeps repository tokens write-only: without this list, an upstream of the
 * operator's own would be handed any project's token. Empty by default: no host gets it.
 */
export class RepositoryTokenHosts {
  private readonly hosts: ReadonlySet<string>;

  constructor(hosts: readonly string[] = []) {
    this.hosts = new Set(hosts.map((host) => hostOf(`http://${host}`)).filter((host): host is string => host !== undefined));
  }

  /** Why `upstream` may not be given the token, or undefined when it asks for none or its host is approved. */
  refusal(upstream: TokenAskingUpstream): string | undefined {
    if (!hasPerCallHeaders(upstream.headers)) return undefined;
    const host = hostOf(upstream.url);
    if (host !== undefined && this.hosts.has(host)) return undefined;
    return (
      `the upstream "${excerpt(upstream.name)}" asks for ${REPOSITORY_TOKEN_PLACEHOLDER} in its headers, and its host ` +
      `${excerpt(host ?? upstream.url)} is not one an administrator approved for projects' repository tokens (${REPOSITORY_TOKEN_HOSTS_SETTING})`
    );
  }
}

/** The URL's host as the allow-list compares it: lower-case, no trailing dot, IPv6 in brackets. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}
