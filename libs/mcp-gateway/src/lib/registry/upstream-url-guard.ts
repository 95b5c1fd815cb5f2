import { lookup as lookupCallback, LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, LookupFunction } from 'node:net';

/** The setting that lets upstreams live on link-local and cloud metadata addresses. */
export const ALLOW_LINK_LOCAL_SETTING = 'MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS';

export interface UpstreamUrlOptions {
  /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS=true. */
  allowLinkLocal: boolean;
  /** Replaces DNS (tests). */
  resolve?: (host: string) => Promise<string[]>;
}

export type UpstreamUrlRefusal = 'not-http' | 'credentials-in-url' | 'unresolvable' | 'link-local' | 'metadata';

/** Why an upstream URL may not be used. The message names the host and address, never the path or query. */
export class UpstreamUrlRefused extends Error {
  constructor(
    readonly reason: UpstreamUrlRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamUrlRefused';
  }
}

// Instance metadata services hand out cloud credentials: an upstream there would leak them to MCP clients.
const METADATA_ADDRESSES = new BlockList();
METADATA_ADDRESSES.addAddress('169.254.169.254', 'ipv4'); // AWS, GCP, Azure, OCI, DigitalOcean …
METADATA_ADDRESSES.addAddress('169.254.170.2', 'ipv4'); // AWS ECS task metadata
METADATA_ADDRESSES.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud
METADATA_ADDRESSES.addAddress('192.0.0.192', 'ipv4'); // Oracle Cloud (classic)
METADATA_ADDRESSES.addAddress('168.63.129.16', 'ipv4'); // Azure's platform address (WireServer: VM extension settings, certificates)
METADATA_ADDRESSES.addAddress('fd00:ec2::254', 'ipv6'); // AWS over IPv6

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.internal']);

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

const resolveAll = async (host: string): Promise<string[]> => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Refuses an upstream URL that is not http(s), carries credentials, or whose host resolves (any of
 * its addresses) to a link-local or cloud metadata address, unless `allowLinkLocal`. Returns the
 * addresses checked. Used when an upstream is registered and again when the runtime connects
 * (DNS may answer differently by then).
 */
export async function checkUpstreamUrl(url: string, options: UpstreamUrlOptions): Promise<string[]> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UpstreamUrlRefused('not-http', 'the upstream URL is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UpstreamUrlRefused('not-http', 'the upstream URL must be http:// or https://');
  if (parsed.username !== '' || parsed.password !== '') {
    throw new UpstreamUrlRefused('credentials-in-url', 'the upstream URL must not carry a user name or password; put credentials in headers');
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  if (!options.allowLinkLocal && METADATA_HOSTS.has(host)) {
    throw new UpstreamUrlRefused('metadata', `the upstream host ${host} is a cloud metadata service; set ${ALLOW_LINK_LOCAL_SETTING}=true to allow it`);
  }
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (options.resolve ?? resolveAll)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw new UpstreamUrlRefused('unresolvable', `the upstream host ${host} does not resolve`);
  if (options.allowLinkLocal) return addresses;
  for (const address of addresses) {
    const refused = refusedAddress(host, address);
    if (refused) throw refused;
  }
  return addresses;
}

/** Why a host may not be reached at one of its addresses, if it may not. */
function refusedAddress(host: string, address: string): UpstreamUrlRefused | undefined {
  // BlockList also matches IPv4-mapped IPv6 (::ffff:169.254.169.254) against the IPv4 rules.
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (METADATA_ADDRESSES.check(address, family)) {
    return new UpstreamUrlRefused('metadata', `the upstream host ${host} resolves to ${address}, a cloud metadata address; set ${ALLOW_LINK_LOCAL_SETTING}=true to allow it`);
  }
  if (LINK_LOCAL.check(address, family)) {
    return new UpstreamUrlRefused('link-local', `the upstream host ${host} resolves to ${address}, a link-local address; set ${ALLOW_LINK_LOCAL_SETTING}=true to allow it`);
  }
  return undefined;
}

/**
 * A DNS lookup for the sockets the runtime opens to upstreams: the same rules as
 * checkUpstreamUrl, applied to the addresses a name resolves to when the connection is made, so
 * a name that resolves to a refused address, or starts to later, is never connected to.
 */
export function guardedLookup(allowLinkLocal: boolean, resolve: typeof lookupCallback = lookupCallback): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = allowLinkLocal ? undefined : addresses.map((entry) => refusedAddress(hostname, entry.address)).find((r) => r !== undefined);
      if (refused) return callback(Object.assign(refused, { code: 'EUPSTREAMREFUSED' }), '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
