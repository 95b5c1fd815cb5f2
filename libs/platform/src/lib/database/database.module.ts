import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { StartupError } from '../bootstrap/startup-error';

export interface DatabaseOptions {
  url: string;
  /** The variable `url` comes from (`CP_DATABASE_URL`, …), named when the database cannot be reached. */
  variable: string;
  /** Entity classes of the service. */
  entities?: DataSourceOptions['entities'];
  /** Migration classes, `<epoch>-<Name>.ts`, one change each; run at start under an advisory lock. */
  migrations?: DataSourceOptions['migrations'];
  /** Distinguishes the application_name in pg_stat_activity. */
  applicationName: string;
}

// A database starting alongside the service gets a few seconds before the start fails.
const CONNECT_ATTEMPTS = 3;
const CONNECT_RETRY_MS = 1000;

// One lock id for every Arbor service's migrations: two replicas starting at once run them one after the other.
const MIGRATION_LOCK_ID = 0x4172626f72; // "Arbor"

/** Runs pending migrations while holding a session advisory lock, so replicas cannot race. */
export async function runMigrationsLocked(dataSource: DataSource, logger = new Logger('database')): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    if (applied.length > 0) logger.log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
  } finally {
    await runner.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await runner.release();
  }
}

export function dataSourceOptions(options: Omit<DatabaseOptions, 'variable'>): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    entities: options.entities ?? [],
    migrations: options.migrations ?? [],
    migrationsRun: false,
    synchronize: false,
    applicationName: options.applicationName,
    extra: { max: 10, connectionTimeoutMillis: 5000 },
  };
}

/**
 * A small second pool on the same database whose transactions commit asynchronously: a commit is
 * visible to every other connection at once, as always, but does not wait for its WAL record to
 * reach the disk. For data a client needs to find again at once, from any replica, and can afford
 * to lose the last fraction of a second of if PostgreSQL itself crashes (never keys or spend).
 */
export async function asynchronousCommitPool(dataSource: DataSource, size = 4): Promise<DataSource> {
  const options = dataSource.options as DataSourceOptions & { extra?: Record<string, unknown> };
  return new DataSource({
    ...options,
    entities: [],
    migrations: [],
    extra: { ...options.extra, max: size, options: '-c synchronous_commit=off' },
  } as DataSourceOptions).initialize();
}

/**
 * An initialised data source, after up to CONNECT_ATTEMPTS tries; a database that cannot be
 * reached (or refuses the credentials) is a StartupError naming `variable`.
 */
export async function connect(options: DataSourceOptions, variable: string, attempts = CONNECT_ATTEMPTS, retryMs = CONNECT_RETRY_MS): Promise<DataSource> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await new DataSource(options).initialize();
    } catch (error) {
      if (attempt >= attempts) throw new StartupError(variable, `cannot connect to the database at ${where(options)}: ${reason(error)}`);
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}

/** host:port/database of a connection URL, without its credentials. */
function where(options: DataSourceOptions): string {
  const url = 'url' in options ? options.url : undefined;
  if (!url) return 'the configured address';
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the configured address';
  }
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // AggregateError (every address of a host refused) carries its causes, not a message.
  const first = error instanceof AggregateError ? error.errors[0] : undefined;
  return (first instanceof Error ? first.message : error.message).split('\n')[0] || ((error as NodeJS.ErrnoException).code ?? error.name);
}

/** TypeORM on the service's PostgreSQL database, migrated before the service listens. */
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          // Retried here, quietly: TypeORM's own retries log every attempt with a stack.
          useFactory: () => ({ ...dataSourceOptions(options), retryAttempts: 0, toRetry: () => false }),
          dataSourceFactory: async (config) => {
            const dataSource = await connect(config as DataSourceOptions, options.variable);
            await runMigrationsLocked(dataSource);
            return dataSource;
          },
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
