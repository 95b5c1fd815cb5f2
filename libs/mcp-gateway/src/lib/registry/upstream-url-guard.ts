import { lookup as lookupCallback, LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP, LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { excerpt } from '@arbor/platform';

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
const METADATA_ADDRESSES = new Set(
  [
    '169.254.169.254', // AWS, GCP, Azure, OCI, DigitalOcean …
    '169.254.170.2', // AWS ECS task metadata
    '100.100.100.200', // Alibaba Cloud
    '192.0.0.192', // Oracle Cloud (classic)
    '168.63.129.16', // Azure's platform address (WireServer: VM extension settings, certificates)
    'fd00:ec2::254', // AWS over IPv6
  ].map((address) => ipaddr.parse(address).toString()),
);

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.internal']);

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
  const host = parsed.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  if (!options.allowLinkLocal && METADATA_HOSTS.has(host)) {
    throw new UpstreamUrlRefused('metadata', `the upstream host ${excerpt(host)} is a cloud metadata service; set ${ALLOW_LINK_LOCAL_SETTING}=true to allow it`);
  }
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (options.resolve ?? resolveAll)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw new UpstreamUrlRefused('unresolvable', `the upstream host ${excerpt(host)} does not resolve`);
  if (options.allowLinkLocal) return addresses;
  for (const address of addresses) {
    const refused = refusedAddress(host, address);
    if (refused) throw refused;
  }
  return addresses;
}

/**
 * Why a host may not be reached at one of its addresses, if it may not. An IPv6 address that
 * carries an IPv4 address (NAT64, SIIT, 6to4, Teredo…) reaches that IPv4 host through a
 * translator, so it is judged as each address it carries as well as itself.
 */
function refusedAddress(host: string, address: string): UpstreamUrlRefused | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  for (const reached of [parsed, ...(parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as ipaddr.IPv6) : [])]) {
    const through = reached === parsed ? '' : ` (which reaches ${reached.toString()})`;
    if (METADATA_ADDRESSES.has(reached.toString())) {
      return new UpstreamUrlRefused(
        'metadata',
        `the upstream host ${excerpt(host)} resolves to ${address}${through}, a cloud metadata address; set ${ALLOW_LINK_LOCAL_SETTING}=true to allow it`,
      );
    }
    if (reached.range() === 'linkLocal') {
      return new UpstreamUrlRefused(
        'link-local',
        `the upstream host ${excerpt(host)} resolves to ${address}${through}, a link-local address; set ${ALLOW_LINK_LOCAL_SETTING}=true to allow it`,
      );
    }
  }
  return undefined;
}

/** Where RFC 6052 puts the IPv4 address after a NAT64 prefix of each length: bytes of the IPv6 address (byte 8 is reserved). */
const RFC6052_LAYOUTS: Readonly<Record<number, readonly number[]>> = {
  48: [6, 7, 9, 10],
  56: [7, 9, 10, 11],
  64: [9, 10, 11, 12],
  96: [12, 13, 14, 15],
};

/**
 * The IPv4 addresses an IPv6 address embeds, by ipaddr.js's classification: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), SIIT (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, and
 * the local-use 64:ff9b:1::/48 at every prefix length RFC 6052 allows), 6to4 (2002::/16) and
 * Teredo (2001::/32: its server and its obfuscated client address).
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  const at = (...indexes: number[]) => new ipaddr.IPv4(indexes.map((index) => bytes[index]));
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [at(12, 13, 14, 15)];
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known prefix; 64:ff9b:1::/48 is local-use, so the operator picks its length.
      return address.match(ipaddr.parse('64:ff9b::') as ipaddr.IPv6, 96) ? [at(12, 13, 14, 15)] : Object.values(RFC6052_LAYOUTS).map((layout) => at(...layout));
    case '6to4':
      return [at(2, 3, 4, 5)];
    case 'teredo':
      return [at(4, 5, 6, 7), new ipaddr.IPv4(bytes.slice(12, 16).map((byte) => byte ^ 0xff))];
    default:
      // IPv4-compatible (deprecated, RFC 4291 §2.5.5.1): 96 zero bits, then the IPv4 address (not :: and ::1).
      return bytes.slice(0, 12).every((byte) => byte === 0) && address.range() === 'unicast' ? [at(12, 13, 14, 15)] : [];
  }
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
