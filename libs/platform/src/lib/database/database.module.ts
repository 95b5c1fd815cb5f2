import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';

export interface DatabaseOptions {
  url: string;
  /** Entity classes of the service. */
  entities?: DataSourceOptions['entities'];
  /** Migration classes, `<epoch>-<Name>.ts`, one change each; run at start under an advisory lock. */
  migrations?: DataSourceOptions['migrations'];
  /** Distinguishes the application_name in pg_stat_activity. */
  applicationName: string;
}

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

export function dataSourceOptions(options: DatabaseOptions): DataSourceOptions {
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

/** TypeORM on the service's PostgreSQL database, migrated before the service listens. */
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ ...dataSourceOptions(options), retryAttempts: 3, retryDelay: 1000 }),
          dataSourceFactory: async (config) => {
            const dataSource = await new DataSource(config as DataSourceOptions).initialize();
            await runMigrationsLocked(dataSource);
            return dataSource;
          },
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
