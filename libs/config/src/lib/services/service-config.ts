import { IsOptional } from 'class-validator';
import { Env } from '../load-config';
import { ConfigProblem } from '../config-error';
import { IsHttpUrl, IsLogFormat, IsRequestLogLevel, ListenAddress, parseListenAddress } from '../validators/env-value';

/** Settings every Arbor service reads, whatever its prefix. */
export abstract class ServiceConfig {
  /** `json` or `text`; unset means json unless stdout is a terminal. */
  @IsOptional()
  @IsLogFormat()
  LOG_FORMAT?: string;

  /** The level of the access log's lines (target `http`): `info` unless set; `npm start` sets `debug`. 5xx lines stay `error`. */
  @IsOptional()
  @IsRequestLogLevel()
  LOG_REQUEST_LEVEL?: string;

  /** Setting it turns OpenTelemetry traces, metrics and logs on. */
  @IsOptional()
  @IsHttpUrl()
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** The OpenTelemetry service name, fixed per service. */
  abstract readonly serviceName: string;
  abstract get listen(): ListenAddress;
  /** The variable `listen` comes from, named when the address cannot be had. */
  abstract readonly listenVariable: string;
  /** The log filter in `tracing` syntax, such as `info,outbox=debug`. */
  abstract get logFilter(): string;
}

export function listenAddress(value: string): ListenAddress {
  const parsed = parseListenAddress(value);
  if (!parsed) throw new Error(`listen address ${value} was not validated`);
  return parsed;
}

/** `CP_AI_GATEWAY_API_URL` → product key `ai-gateway`. */
export function productKey(variablePart: string): string {
  return variablePart.toLowerCase().replace(/_/g, '-');
}

/**
 * Every variable `<prefix><PRODUCT><suffix>` set in env, keyed by product key, with problems for
 * values that are not http(s) URLs.
 */
export function productUrls(env: Env, prefix: string, suffix: string): { urls: Record<string, string>; problems: ConfigProblem[] } {
  const urls: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  const pattern = new RegExp(`^${prefix}([A-Z0-9_]+?)${suffix}$`);
  for (const [variable, value] of Object.entries(env)) {
    const match = pattern.exec(variable);
    if (!match || value === undefined || value === '') continue;
    if (!isHttpUrl(value)) {
      problems.push({ variable, message: 'must be an http:// or https:// URL' });
      continue;
    }
    urls[productKey(match[1])] = value.replace(/\/+$/, '');
  }
  return { urls, problems };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Both of a pair of variables, or neither. */
export function bothOrNeither(env: Env, a: string, b: string): ConfigProblem[] {
  const hasA = Boolean(env[a]);
  const hasB = Boolean(env[b]);
  if (hasA === hasB) return [];
  const missing = hasA ? b : a;
  return [{ variable: missing, message: `is required when ${hasA ? a : b} is set` }];
}

/**
 * A product's control-plane settings come all together or not at all: a partial set is a mistake
 * worth stopping for, not a silently disabled feature. `prefix` is AIGW or MCPGW.
 */
export function controlPlaneSettings(env: Env, prefix: string): ConfigProblem[] {
  const [issuer, url, id, secret] = ['OIDC_ISSUER_URL', 'CONTROL_PLANE_URL', 'M2M_CLIENT_ID', 'M2M_CLIENT_SECRET'].map((name) => `${prefix}_${name}`) as [
    string,
    string,
    string,
    string,
  ];
  const problems = bothOrNeither(env, id, secret);
  if (!env[url] && !env[id] && !env[secret]) return problems;
  for (const name of [issuer, url, id, secret]) {
    if (!env[name] && !problems.some((problem) => problem.variable === name)) {
      problems.push({ variable: name, message: `is required when the control plane is configured (${url}, ${id}/SECRET)` });
    }
  }
  return problems;
}

/**
 * Browser origins a product allows by CORS: the suite dashboard's (the control plane's UI), from
 * `<PREFIX>_CORS_ORIGINS`, else the origin of the control plane's URL, where the UI is served.
 */
export function suiteDashboardOrigins(listed: string | undefined, controlPlaneUrl: string | undefined): string[] {
  const origins = (listed ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/$/, ''))
    .filter(Boolean);
  if (origins.length > 0) return origins;
  return controlPlaneUrl ? [new URL(controlPlaneUrl).origin] : [];
}
