// The naming rule for several URLs (README.md, "Several URLs"): a name or URI that only one upstream
// has stays as it is; one that two or more upstreams share is prefixed by each upstream's label,
// the same shapes the gateway uses for its virtual servers (`<label>__<name>`, `arbor-mcp://<label>/<uri>`).

const NAME_SEPARATOR = '__';
export const URI_PREFIX = 'arbor-mcp://';

export interface Exposed<T> {
  /** What the stdio client sees. */
  exposed: string;
  /** Index of the upstream in --url order. */
  upstream: number;
  /** What the upstream calls it. */
  original: string;
  item: T;
}

/** A gateway virtual-server URL (/servers/<id>/mcp or /sse) is labelled by its id, any other by its host; repeats get -2, -3… */
export function labelUrls(urls: readonly URL[]): string[] {
  const seen = new Map<string, number>();
  return urls.map((url) => {
    const server = /\/servers\/([^/]+)\/(?:mcp|sse)\/?$/.exec(url.pathname);
    const base = (server ? decodeURIComponent(server[1]) : url.host).replace(/[^A-Za-z0-9_-]+/g, '-');
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}-${count}`;
  });
}

export function exposeNames<T>(
  perUpstream: ReadonlyMap<number, readonly T[]>,
  keyOf: (item: T) => string,
  prefix: (label: string, key: string) => string,
  labels: readonly string[],
): Exposed<T>[] {
  const owners = new Map<string, Set<number>>();
  for (const [upstream, items] of perUpstream) {
    for (const item of items) owners.set(keyOf(item), (owners.get(keyOf(item)) ?? new Set()).add(upstream));
  }
  const exposed: Exposed<T>[] = [];
  for (const [upstream, items] of perUpstream) {
    for (const item of items) {
      const original = keyOf(item);
      const shared = (owners.get(original)?.size ?? 0) > 1;
      exposed.push({ exposed: shared ? prefix(labels[upstream], original) : original, upstream, original, item });
    }
  }
  return exposed;
}

export function prefixName(label: string, name: string): string {
  return `${label}${NAME_SEPARATOR}${name}`;
}

export function prefixUri(label: string, uri: string): string {
  return `${URI_PREFIX}${label}/${uri}`;
}
