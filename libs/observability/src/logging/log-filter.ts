/** Levels of a log filter, from the most verbose; `off` silences a target. */
export const LOG_FILTER_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'off'] as const;
export type LogFilterLevel = (typeof LOG_FILTER_LEVELS)[number];
/** Levels a log line can have; `fatal` passes wherever `error` does. */
export type LogLineLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

export interface LogDirective {
  /** A module such as `outbox`; it also covers `outbox::claim`. */
  readonly target: string;
  readonly level: LogFilterLevel;
}

export class InvalidLogFilterError extends Error {
  constructor(
    readonly filter: string,
    reason: string,
  ) {
    super(`invalid log filter "${filter}": ${reason} (expected e.g. "info" or "warn,outbox=debug,http=info"; levels: ${LOG_FILTER_LEVELS.join(', ')})`);
    this.name = 'InvalidLogFilterError';
  }
}

const SEVERITY: Record<LogFilterLevel | LogLineLevel, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 50,
  off: Number.POSITIVE_INFINITY,
};

// Same alphabet as the LOG filter validator in @arbor/config, so what config accepts parses here.
const TARGET = /^[A-Za-z0-9_:.-]+$/;
// Contexts are a bounded set in practice (class and module names); the cap guards against dynamic ones.
const CACHE_LIMIT = 1000;

/**
 * A parsed filter in the syntax of Rust's `tracing` EnvFilter: a bare level is the default,
 * `target=level` sets a module, and the most specific matching target wins.
 */
export class LogFilter {
  /** Most specific target first, so the first match is the one that applies. */
  private readonly bySpecificity: readonly LogDirective[];
  private readonly cache = new Map<string, LogFilterLevel>();

  constructor(
    readonly defaultLevel: LogFilterLevel,
    readonly directives: readonly LogDirective[],
  ) {
    this.bySpecificity = [...directives].sort((a, b) => b.target.length - a.target.length);
  }

  /** The level for a target: its own directive, else its nearest `parent::` directive, else the default. */
  levelFor(target: string | undefined): LogFilterLevel {
    if (target === undefined || this.directives.length === 0) return this.defaultLevel;
    const cached = this.cache.get(target);
    if (cached !== undefined) return cached;
    const match = this.bySpecificity.find((d) => target === d.target || target.startsWith(`${d.target}::`));
    const level = match?.level ?? this.defaultLevel;
    if (this.cache.size < CACHE_LIMIT) this.cache.set(target, level);
    return level;
  }

  enabled(target: string | undefined, level: LogLineLevel): boolean {
    return SEVERITY[level] >= SEVERITY[this.levelFor(target)];
  }

  /** The most verbose level any directive asks for: the root logger must let it through. */
  mostVerbose(): LogFilterLevel {
    return [this.defaultLevel, ...this.directives.map((d) => d.level)].reduce((a, b) => (SEVERITY[b] < SEVERITY[a] ? b : a));
  }

  toString(): string {
    return [this.defaultLevel, ...this.directives.map((d) => `${d.target}=${d.level}`)].join(',');
  }
}

/**
 * Parses `warn,outbox=debug,http=info`. Whitespace is ignored and levels are case-insensitive;
 * a later directive for the same target replaces an earlier one. Throws InvalidLogFilterError.
 */
export function parseLogFilter(filter: string): LogFilter {
  const compact = filter.replace(/\s+/g, '');
  if (compact === '') throw new InvalidLogFilterError(filter, 'it is empty');
  let defaultLevel: LogFilterLevel | undefined;
  const byTarget = new Map<string, LogFilterLevel>();
  for (const directive of compact.split(',')) {
    if (directive === '') throw new InvalidLogFilterError(filter, 'it has an empty directive');
    const parts = directive.split('=');
    if (parts.length > 2) throw new InvalidLogFilterError(filter, `"${directive}" has more than one "="`);
    const [target, rawLevel] = parts.length === 2 ? parts : [undefined, parts[0]];
    const level = rawLevel.toLowerCase();
    if (!isFilterLevel(level)) {
      const hint = target === undefined ? ' (a target needs a level: "target=level")' : '';
      throw new InvalidLogFilterError(filter, `"${rawLevel}" is not a level${hint}`);
    }
    if (target === undefined) {
      defaultLevel = level;
    } else if (!TARGET.test(target)) {
      throw new InvalidLogFilterError(filter, `"${target}" is not a target name`);
    } else {
      byTarget.set(target, level);
    }
  }
  // Without a bare level, other modules still log errors: a typo in a module name must not hide failures.
  return new LogFilter(
    defaultLevel ?? 'error',
    [...byTarget].map(([target, level]) => ({ target, level })),
  );
}

function isFilterLevel(value: string): value is LogFilterLevel {
  return (LOG_FILTER_LEVELS as readonly string[]).includes(value);
}

/** Nest's own bootstrap chatter; `nest=warn` quiets it. */
const NEST_FRAMEWORK_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication', 'NestApplicationContext']);

/** The filter target of a log context: Nest's framework contexts are `nest`, anything else is itself. */
export function logTargetFor(context: string | undefined): string | undefined {
  return context !== undefined && NEST_FRAMEWORK_CONTEXTS.has(context) ? 'nest' : context;
}
