import 'reflect-metadata';
import { getMetadataStorage, validateSync } from 'class-validator';
import { ConfigError, ConfigProblem } from './config-error';

export type Env = Record<string, string | undefined>;

/** A schema may add checks that span several variables or variable families (CP_<PRODUCT>_API_URL). */
export interface CrossChecked {
  crossCheck(env: Env): ConfigProblem[];
}

function declaredVariables(schema: new () => object): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(schema, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))];
}

/**
 * Reads the variables a schema declares from `env` (only the environment: no files, no
 * defaults from elsewhere), validates them and returns the typed instance. Empty strings count
 * as unset, so `FOO= cmd` falls back to the default. Throws ConfigError naming every problem.
 */
export function loadConfig<T extends object>(schema: new () => T, env: Env = process.env): T {
  const config = new schema();
  for (const variable of declaredVariables(schema)) {
    const raw = env[variable];
    if (raw !== undefined && raw !== '') {
      (config as Record<string, unknown>)[variable] = raw;
    }
  }

  const problems: ConfigProblem[] = validateSync(config, { forbidUnknownValues: false }).map((error) => ({
    variable: error.property,
    message: Object.values(error.constraints ?? {})[0] ?? 'is invalid',
  }));
  if (isCrossChecked(config)) {
    const flagged = new Set(problems.map((p) => p.variable));
    problems.push(...config.crossCheck(env).filter((p) => !flagged.has(p.variable)));
  }
  if (problems.length > 0) {
    throw new ConfigError(problems.sort((a, b) => a.variable.localeCompare(b.variable)));
  }
  return config;
}

function isCrossChecked(config: object): config is CrossChecked {
  return typeof (config as Partial<CrossChecked>).crossCheck === 'function';
}
