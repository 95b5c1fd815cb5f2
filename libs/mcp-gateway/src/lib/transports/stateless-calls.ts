import { Injectable } from '@nestjs/common';
import { LoggingLevelSchema, type LoggingLevel, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamNotification } from '../upstreams/upstream-pool';

const SEVERITY: readonly LoggingLevel[] = LoggingLevelSchema.options;
/** Levels kept at most; the oldest setting is forgotten first (its caller then gets every message again). */
const MAX_LOG_LEVELS = 10_000;

/**
 * The requests a stateless gateway is answering, so that a client's `notifications/cancelled`
 * (a POST of its own, with no session to tie it to) reaches the one it names: the same principal,
 * on the same endpoint, with that request id. A cancellation meant for another replica's request
 * finds nothing here and is taken as a late one.
 */
@Injectable()
export class StatelessCalls implements StatelessLogLevels {
  private readonly running = new Map<string, () => void>();
  private readonly logLevels = new Map<string, LoggingLevel>();

  /** Keeps `cancel` for the request until the returned function is called (when it is answered). */
  track(principal: string, serverId: string | null, id: RequestId, cancel: () => void): () => void {
    const key = keyOf(principal, serverId, id);
    this.running.set(key, cancel);
    return () => {
      if (this.running.get(key) === cancel) this.running.delete(key);
    };
  }

  setLogLevel(principal: string, serverId: string | null, level: LoggingLevel): void {
    const key = keyOf(principal, serverId, '');
    this.logLevels.delete(key);
    if (this.logLevels.size >= MAX_LOG_LEVELS) this.logLevels.delete(this.logLevels.keys().next().value as string);
    this.logLevels.set(key, level);
  }

  logRelay(principal: string, serverId: string | null, send: (notification: UpstreamNotification) => void): (notification: UpstreamNotification) => void {
    return logRelay(this.logLevels.get(keyOf(principal, serverId, '')), send);
  }

  /** A `notifications/cancelled` from this principal on this endpoint: cancels the request it names. */
  cancel(principal: string, serverId: string | null, id: RequestId): boolean {
    const cancel = this.running.get(keyOf(principal, serverId, id));
    cancel?.();
    return cancel !== undefined;
  }
}

/**
 * The log levels stateless callers set with `logging/setLevel`: with no session to keep it in, a
 * level holds for the same principal on the same endpoint, on this replica, until set again.
 */
export interface StatelessLogLevels {
  setLogLevel(principal: string, serverId: string | null, level: LoggingLevel): void;
  /** The relay of a call's log messages to its caller: those at or above the caller's level. */
  logRelay(principal: string, serverId: string | null, send: (notification: UpstreamNotification) => void): (notification: UpstreamNotification) => void;
}

/** Passes on the log messages at `level` or above (all of them without a level); nothing else. */
export function logRelay(level: LoggingLevel | undefined, send: (notification: UpstreamNotification) => void): (notification: UpstreamNotification) => void {
  const floor = level === undefined ? 0 : SEVERITY.indexOf(level);
  return (notification) => {
    if (notification.method !== 'notifications/message') return;
    const severity = SEVERITY.indexOf(notification.params?.['level'] as LoggingLevel);
    if (severity >= floor) send(notification);
  };
}

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return SEVERITY.includes(value as LoggingLevel);
}

function keyOf(principal: string, serverId: string | null, id: RequestId): string {
  return `${principal}\u0000${serverId ?? ''}\u0000${typeof id}:${String(id)}`;
}
