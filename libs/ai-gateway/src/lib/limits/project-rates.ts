import { Injectable } from '@nestjs/common';
import { ProviderError } from '@arbor/provider-adapters';
import { excerpt } from '@arbor/platform';
import { GatewayClock } from '../gateway-clock';
import { GatewayRedis } from './gateway-redis';

const MINUTE_MS = 60_000;
// Minute counters outlive their minute a little, for replicas whose clocks differ slightly.
const MINUTE_TTL_MS = 120_000;

/** A project's rate limits (LiteLLM's team rpm_limit and tpm_limit), over every key of the project. */
export interface ProjectRateLimits {
  readonly rpmLimit: number | null;
  readonly tpmLimit: number | null;
}

/** A call a project's rates let through: settle it once with the tokens it used, or take it back when refused after all. */
export interface ProjectRateAdmission {
  settle(tokens: number): void;
  refund(): void;
}

interface MinuteCounts {
  minute: number;
  requests: number;
  tokens: number;
}

/**
 * Requests and tokens per minute of a project, over all its keys: in this process, and with
 * AIGW_REDIS_URL in Redis shared by every replica (one pipelined round trip per admission, settling
 * without waiting). Rate limits stay open while Redis is unreachable: each replica counts on alone,
 * as the key's own limits do. A project without rates costs nothing here (the caller asks only
 * when one is set).
 */
@Injectable()
export class ProjectRates {
  private readonly local = new Map<string, MinuteCounts>();

  constructor(
    private readonly clock: GatewayClock,
    private readonly redis: GatewayRedis,
  ) {}

  /** Counts the request in its minute; throws the 429 the client gets when the project is over a limit. */
  async admit(project: string, limits: ProjectRateLimits): Promise<ProjectRateAdmission> {
    const now = this.clock.now();
    const minute = Math.floor(now / MINUTE_MS);
    const name = (kind: string) => `aigw:project:{${project}}:${kind}:${minute}`;
    let counted: { requests: number; tokens: number } | undefined;
    let shared = false;
    const redis = this.redis.ready;
    if (redis) {
      try {
        const pipeline = redis.pipeline();
        if (limits.rpmLimit !== null) pipeline.incr(name('rpm')).pexpire(name('rpm'), MINUTE_TTL_MS);
        if (limits.tpmLimit !== null) pipeline.get(name('tpm'));
        const results = await pipeline.exec();
        if (!results) throw new Error('Redis answered no results');
        for (const [error] of results) if (error) throw error;
        const requests = limits.rpmLimit !== null ? Number(results[0]?.[1] ?? 0) : 0;
        const tokens = limits.tpmLimit !== null ? Number(results[limits.rpmLimit !== null ? 2 : 0]?.[1] ?? 0) || 0 : 0;
        counted = { requests, tokens };
        shared = true;
      } catch (error) {
        this.redis.unavailable(error);
      }
    }
    const here = this.minuteOf(project, minute);
    if (!counted) {
      if (limits.rpmLimit !== null) here.requests += 1;
      counted = { requests: here.requests, tokens: here.tokens };
    }
    let done = false;
    const refund = () => {
      if (done) return;
      done = true;
      if (limits.rpmLimit === null) return;
      if (shared) this.redis.ready?.decr(name('rpm')).catch((error: unknown) => this.redis.unavailable(error));
      else if (here.minute === minute) here.requests -= 1;
    };
    const retryAfterS = Math.max(1, Math.ceil(((minute + 1) * MINUTE_MS - now) / 1000));
    if (limits.rpmLimit !== null && counted.requests > limits.rpmLimit) {
      refund();
      throw projectRateExceeded(project, 'requests', limits.rpmLimit, retryAfterS);
    }
    if (limits.tpmLimit !== null && counted.tokens >= limits.tpmLimit) {
      refund();
      throw projectRateExceeded(project, 'tokens', limits.tpmLimit, retryAfterS);
    }
    return {
      refund,
      settle: (tokens) => {
        if (done) return;
        done = true;
        if (limits.tpmLimit === null || !(tokens > 0)) return;
        const whole = Math.round(tokens);
        const settledMinute = Math.floor(this.clock.now() / MINUTE_MS);
        this.minuteOf(project, settledMinute).tokens += whole;
        const ready = this.redis.ready;
        if (shared && ready) {
          const key = `aigw:project:{${project}}:tpm:${settledMinute}`;
          ready
            .pipeline()
            .incrby(key, whole)
            .pexpire(key, MINUTE_TTL_MS)
            .exec()
            .catch((error: unknown) => this.redis.unavailable(error));
        }
      },
    };
  }

  private minuteOf(project: string, minute: number): MinuteCounts {
    let counts = this.local.get(project);
    if (!counts || counts.minute !== minute) this.local.set(project, (counts = { minute, requests: 0, tokens: 0 }));
    return counts;
  }
}

const projectRateExceeded = (project: string, kind: 'requests' | 'tokens', limit: number, retryAfterS: number) =>
  new ProviderError(
    429,
    'rate_limit_exceeded',
    `Rate limit reached for project "${excerpt(project)}" (LiteLLM's team): ${limit} ${kind} per minute (${kind === 'requests' ? 'rpm' : 'tpm'}_limit). Try again in ${retryAfterS}s.`,
    'rate_limit_exceeded',
    null,
    { 'retry-after': String(retryAfterS) },
  );
