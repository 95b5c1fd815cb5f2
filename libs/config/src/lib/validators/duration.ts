import { envValue } from './env-value';

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `30s`, `5m`, `168h`, `7d` → milliseconds; undefined when malformed or not positive. */
export function parseDuration(value: string): number | undefined {
  const match = DURATION.exec(value.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2]];
  return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
}

export const IsDuration = envValue('isDuration', 'a positive duration: a whole number with ms, s, m, h or d (for example 30s, 168h, 7d)', (v) => parseDuration(v) !== undefined);

/** A duration the config check already accepted, in milliseconds. */
export function durationMs(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new Error(`duration ${value} was not validated`);
  return ms;
}
