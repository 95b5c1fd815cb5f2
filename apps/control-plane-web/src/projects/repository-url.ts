/** Where a repository lives, as the add-repository form asks for it. */
export interface RepositoryLocation {
  host: string;
  owner: string;
  name: string;
}

// scp-like syntax git uses for SSH: `git@github.com:acme/gamma-service.git`.
const SCP_LIKE = /^[^@/\s]+@([^:/\s]+):(?!\/)(.+)$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/**
 * Host, owner and name from what people copy for a repository: its page or clone URL over HTTPS
 * (with or without scheme, `.git` or a trailing slash), SSH (`git@host:owner/name.git`,
 * `ssh://git@host/owner/name.git`) or a link deeper into it (`…/tree/main`, GitLab's `…/-/tree/main`).
 * On GitHub a repository is always owner/name; elsewhere groups may nest, and the owner is the whole
 * group path. Null for anything that is not such a URL.
 */
export function parseRepositoryUrl(text: string): RepositoryLocation | null {
  const input = text.trim();
  if (input === '' || /\s/.test(input)) return null;
  let host: string;
  let path: string;
  const scp = SCHEME.test(input) ? null : SCP_LIKE.exec(input);
  if (scp) {
    [, host, path] = scp;
  } else {
    let url: URL;
    try {
      url = new URL(SCHEME.test(input) ? input : `https://${input}`);
    } catch {
      return null;
    }
    if (!['https:', 'http:', 'ssh:', 'git:'].includes(url.protocol)) return null;
    host = url.hostname;
    path = decodeURIComponent(url.pathname);
  }
  host = host.toLowerCase();
  if (!HOST.test(host) || !host.includes('.')) return null;
  let segments = path.split('/').filter((segment) => segment !== '');
  // GitLab marks where the repository's path ends and its pages begin.
  const pages = segments.indexOf('-');
  if (pages >= 0) segments = segments.slice(0, pages);
  if (host === 'github.com' || host === 'www.github.com') {
    host = 'github.com';
    segments = segments.slice(0, 2);
  }
  if (segments.length < 2) return null;
  const name = segments[segments.length - 1].replace(/\.git$/i, '');
  const owner = segments.slice(0, -1).join('/');
  return name === '' ? null : { host, owner, name };
}
