import { Inject, Injectable } from '@nestjs/common';
import type { FailureKind, PerFailureKind } from './config/gateway-config';
import { GatewayClock } from './gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';

// LiteLLM's defaults when router_settings leaves them out.
export const DEFAULT_ALLOWED_FAILS = 3;
export const DEFAULT_COOLDOWN_TIME_S = 5;
const FAIL_WINDOW_MS = 60_000;
// An upstream's error message is kept this long at most: enough to say what went wrong.
const LAST_ERROR_MAX_CHARS = 300;

/** The last failure of a deployment that was the deployment's (not the request's), as operators read it. */
export interface DeploymentLastError {
  status: number;
  code: string | null;
  message: string;
  /** Epoch ms. */
  at: number;
}

/**
 * In-process deployment health: a deployment failing `allowed_fails` times within a minute is
 * skipped for `cooldown_time` seconds; a 429 with Retry-After cools it for at least that long.
 * Failures only count against a deployment that has siblings under its alias (LiteLLM's rule:
 * cooling the only deployment of an alias would turn one bad minute into a refusal of all calls);
 * Retry-After is the upstream's own word and is honoured always, unless `disable_cooldowns` is set.
 */
@Injectable()
export class DeploymentCooldowns {
  private readonly failures = new Map<string, number[]>();
  private readonly coolUntil = new Map<string, number>();
  private readonly lastErrors = new Map<string, DeploymentLastError>();
  private readonly listeners: ((deploymentId: string) => void)[] = [];
  private readonly allowedFails: number;
  private readonly cooldownMs: number;
  private readonly disabled: boolean;
  private readonly allowedFailsPolicy: PerFailureKind;

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: Pick<GatewaySettings, 'router'>,
    private readonly clock: GatewayClock,
  ) {
    this.allowedFails = settings.router.allowedFails ?? DEFAULT_ALLOWED_FAILS;
    this.cooldownMs = (settings.router.cooldownTimeS ?? DEFAULT_COOLDOWN_TIME_S) * 1000;
    this.disabled = settings.router.disableCooldowns ?? false;
    this.allowedFailsPolicy = settings.router.allowedFailsPolicy ?? {};
  }

  /** Told each time a deployment starts cooling down (metrics). */
  onCooldown(listener: (deploymentId: string) => void): void {
    this.listeners.push(listener);
  }

  isCooling(deploymentId: string): boolean {
    return this.remainingMs(deploymentId) > 0;
  }

  /** How long the deployment stays cooled down, 0 when it is available. */
  remainingMs(deploymentId: string): number {
    const until = this.coolUntil.get(deploymentId);
    if (until === undefined) return 0;
    const remaining = until - this.clock.now();
    if (remaining <= 0) {
      this.coolUntil.delete(deploymentId);
      return 0;
    }
    return remaining;
  }

  /**
   * One failed call. `countable` is false for the only deployment of an alias;
   * `retryAfterS` is the upstream's Retry-After of a 429; `kind` counts it apart when
   * allowed_fails_policy allows that kind its own number of failures; `error` is kept as the
   * deployment's last error (also with disable_cooldowns).
   */
  recordFailure(
    deploymentId: string,
    options: { countable: boolean; retryAfterS?: number; kind?: FailureKind; error?: Pick<DeploymentLastError, 'status' | 'code' | 'message'> },
  ): void {
    const now = this.clock.now();
    if (options.error) {
      const { status, code, message } = options.error;
      this.lastErrors.set(deploymentId, { status, code, message: message.length > LAST_ERROR_MAX_CHARS ? `${message.slice(0, LAST_ERROR_MAX_CHARS - 1)}…` : message, at: now });
    }
    // disable_cooldowns: every deployment stays in the rotation, whatever happens.
    if (this.disabled) return;
    if (options.retryAfterS !== undefined && options.retryAfterS > 0) {
      this.coolFor(deploymentId, Math.max(options.retryAfterS * 1000, this.cooldownMs), now);
    }
    if (!options.countable) return;
    const ownAllowance = options.kind !== undefined ? this.allowedFailsPolicy[options.kind] : undefined;
    const counter = ownAllowance !== undefined ? `${deploymentId}\u0000${options.kind}` : deploymentId;
    const recent = (this.failures.get(counter) ?? []).filter((at) => now - at < FAIL_WINDOW_MS);
    recent.push(now);
    if (recent.length >= Math.max(1, ownAllowance ?? this.allowedFails)) {
      this.coolFor(deploymentId, this.cooldownMs, now);
      this.failures.delete(counter);
    } else {
      this.failures.set(counter, recent);
    }
  }

  /** Until when (epoch ms) the deployment cools down; undefined when it is available. */
  coolingUntil(deploymentId: string): number | undefined {
    return this.remainingMs(deploymentId) > 0 ? this.coolUntil.get(deploymentId) : undefined;
  }

  /** The deployment's last failure on this replica; undefined when it has not failed since the start. */
  lastError(deploymentId: string): DeploymentLastError | undefined {
    return this.lastErrors.get(deploymentId);
  }

  /** Another replica's cooldown of the deployment (shared through Redis): kept, without telling the listeners again. */
  adopt(deploymentId: string, until: number): void {
    if (this.disabled || until <= this.clock.now() || until <= (this.coolUntil.get(deploymentId) ?? 0)) return;
    this.coolUntil.set(deploymentId, until);
  }

  private coolFor(deploymentId: string, ms: number, now: number): void {
    const until = now + ms;
    const current = this.coolUntil.get(deploymentId) ?? 0;
    if (until <= current) return;
    this.coolUntil.set(deploymentId, until);
    if (current <= now) for (const listener of this.listeners) listener(deploymentId);
  }
}

/** Retry-After as seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}
