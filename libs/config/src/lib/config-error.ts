/** One bad environment variable and what it should have held. */
export interface ConfigProblem {
  variable: string;
  message: string;
}

/** Raised by `loadConfig` when any variable is missing or malformed; lists every one of them. */
export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(`invalid configuration:\n${problems.map((p) => `${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }

  /** One line per bad variable, as printed to stderr before the process exits. */
  lines(): string[] {
    return this.problems.map((p) => `${p.variable}: ${p.message}`);
  }
}
