import { isIP } from 'node:net';
import { ValidateBy, ValidationOptions } from 'class-validator';

/**
 * Builds a property decorator for one kind of environment value. `expected` is the phrase a
 * person reads when the value is wrong ("must be <expected>") or absent ("is required: <expected>").
 */
export function envValue(name: string, expected: string, isValid: (value: string) => boolean) {
  return (options?: ValidationOptions): PropertyDecorator =>
    ValidateBy(
      {
        name,
        validator: {
          validate: (value: unknown) => typeof value === 'string' && isValid(value),
          defaultMessage: (args) => (args?.value === undefined ? `is required: ${expected}` : `must be ${expected}`),
        },
      },
      options,
    );
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isBase64Key32(v: string): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(v) && v.length % 4 === 0 && Buffer.from(v, 'base64').length === 32;
}

export const IsHttpUrl = envValue('isHttpUrl', 'an http:// or https:// URL', (v) => {
  const url = parseUrl(v);
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:');
});

export const IsPostgresUrl = envValue('isPostgresUrl', 'a PostgreSQL connection URL (postgres://user:password@host:port/database)', (v) => {
  const url = parseUrl(v);
  return url !== undefined && (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.pathname.length > 1;
});

export const IsRedisUrl = envValue('isRedisUrl', 'a redis:// or rediss:// URL', (v) => {
  const url = parseUrl(v);
  return url !== undefined && (url.protocol === 'redis:' || url.protocol === 'rediss:');
});

export const IsListenAddress = envValue('isListenAddress', 'host:port with a port from 0 to 65535 (for example 0.0.0.0:8080)', (v) => parseListenAddress(v) !== undefined);

export const IsBase64Key32 = envValue('isBase64Key32', 'base64 of exactly 32 bytes (openssl rand -base64 32)', (v) => isBase64Key32(v));

export const IsBase64Key32List = envValue('isBase64Key32List', 'a comma-separated list of base64 keys of exactly 32 bytes each', (v) =>
  v.split(',').every((key) => isBase64Key32(key.trim())),
);

/** Browser origins as browsers send them: scheme://host[:port], nothing after. */
export const IsOriginList = envValue('isOriginList', 'a comma-separated list of origins like https://app.example.com', (v) =>
  v
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .every((origin) => {
      try {
        const url = new URL(origin);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin.replace(/\/$/, '');
      } catch {
        return false;
      }
    }),
);

/** A host as an allow-list names it: a name or an IP address (IPv6 in brackets), without scheme, port or path. */
function isHost(value: string): boolean {
  if (/^\[.*\]$/.test(value)) return isIP(value.slice(1, -1)) === 6;
  return !/[:/?#@\\\s]/.test(value) && parseUrl(`http://${value}`) !== undefined;
}

export const IsHostList = envValue('isHostList', 'a comma-separated list of host names like git.example.com (no scheme, port or path; IPv6 addresses in brackets)', (v) =>
  v
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean)
    .every(isHost),
);

export const IsBooleanString = envValue('isBooleanString', 'true or false', (v) => v === 'true' || v === 'false');

export const IsNonEmpty = envValue('isNonEmpty', 'a non-empty string', (v) => v.trim().length > 0);

export const IsLogFormat = envValue('isLogFormat', 'json or text', (v) => v === 'json' || v === 'text');

export const IsRequestLogLevel = envValue('isRequestLogLevel', 'info or debug', (v) => v === 'info' || v === 'debug');

const LEVEL = '(?:trace|debug|info|warn|error|off)';
const DIRECTIVE = `(?:[A-Za-z0-9_:.-]+=)?${LEVEL}`;
const LOG_FILTER = new RegExp(`^${DIRECTIVE}(?:,${DIRECTIVE})*$`, 'i');

export const IsLogFilter = envValue('isLogFilter', 'a log filter such as "info" or "warn,outbox=debug,http=info" (levels: trace, debug, info, warn, error, off)', (v) =>
  LOG_FILTER.test(v.replace(/\s+/g, '')),
);

export interface ListenAddress {
  host: string;
  port: number;
}

/** `0.0.0.0:8080`, `[::]:8080`, `:8080` → host and port; undefined when malformed. */
export function parseListenAddress(value: string): ListenAddress | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/.exec(value);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port > 65535) return undefined;
  const host = match[1].startsWith('[') ? match[1].slice(1, -1) : match[1] || '0.0.0.0';
  return { host, port };
}
