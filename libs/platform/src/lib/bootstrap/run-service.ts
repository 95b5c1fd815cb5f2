import 'reflect-metadata';
import type { Server } from 'node:http';
import { DynamicModule, INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigError, Env, loadConfig, ServiceConfig } from '@arbor/config';
import { startTelemetry, useArborLogger } from '@arbor/observability';
import { answerClientErrorsInJson } from '../input/client-errors';
import { inputLimits, requireUtf8Body } from '../input/input-limits.middleware';
import { DirectRoutes } from './direct-routes';
import { ROUTE_TABLE_VARIABLE, writeRouteTable } from './route-table';
import { StartupError } from './startup-error';

const SHUTDOWN_GRACE_MS = 10_000;
/** Express's own default, for services that name no other. */
const DEFAULT_BODY_LIMIT = '100kb';

export interface ServiceDefinition<C extends ServiceConfig> {
  /** The service's configuration schema (from @arbor/config). */
  schema: new () => C;
  /** The root module for a validated configuration. */
  module: (config: C) => DynamicModule;
  /** Browser origins allowed by CORS; none means CORS stays off. */
  corsOrigins?: (config: C) => string[];
  /** Largest JSON (and form) body accepted, e.g. `'50mb'`; Express's default of 100 kB otherwise. */
  bodyLimit?: string;
  /** Framework routes whose body text is passed on as the client sent it (only its nesting is checked). */
  opaqueBody?: (path: string) => boolean;
}

export interface RunningService<C extends ServiceConfig> {
  app: INestApplication;
  config: C;
  /** The address actually bound (port 0 in tests picks a free one). */
  url: string;
  close(): Promise<void>;
}

/** Builds, configures and starts a service; throws ConfigError before anything listens. */
export async function startService<C extends ServiceConfig>(definition: ServiceDefinition<C>, env: Env = process.env): Promise<RunningService<C>> {
  const config = loadConfig(definition.schema, env);
  const telemetry = await startTelemetry({ serviceName: config.serviceName });
  const app = await NestFactory.create<NestExpressApplication>(definition.module(config), {
    bufferLogs: true,
    // A start that fails writes what it logged only if the failure is a bug (runService): a
    // StartupError is said in one line, not again with a stack by Nest's exception handler.
    autoFlushLogs: false,
    abortOnError: false,
    // Our parsers, not Nest's: the body limit is the service's, and bodies must be UTF-8.
    bodyParser: false,
  });
  installEdge(app, definition.bodyLimit ?? DEFAULT_BODY_LIMIT, definition.opaqueBody);
  useArborLogger(app);
  app.get(DirectRoutes).install(app.getHttpServer() as Server);
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  const origins = definition.corsOrigins?.(config) ?? [];
  // Exposed so that a browser app can revalidate (ETag), follow a creation and back off.
  const exposedHeaders = ['ETag', 'Location', 'Retry-After', 'WWW-Authenticate'];
  if (origins.length > 0) app.enableCors({ origin: origins, credentials: true, maxAge: 600, exposedHeaders });
  const { host, port } = config.listen;
  await app.init();
  await listen(app.getHttpServer() as Server, port, host, config.listenVariable);
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${address.port}`;
  new Logger('nest').log(`${config.serviceName} listening on ${host}:${address.port}`);
  const routeTable = env[ROUTE_TABLE_VARIABLE];
  if (routeTable) writeRouteTable(app, routeTable);
  return {
    app,
    config,
    url,
    close: async () => {
      // In-flight requests finish; idle keep-alive connections would hold the server open for
      // as long as their clients live, so they are closed, and anything left after a grace period too.
      const server = app.getHttpServer() as Server;
      const closing = app.close();
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
      await closing;
      clearTimeout(force);
      await telemetry.shutdown();
    },
  };
}

/**
 * Binds the server as Nest's `listen` would, but a taken or unavailable address is a StartupError
 * naming the variable, where Nest logs the bare error and a stack.
 */
function listen(server: Server, port: number, host: string, variable: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const address = `${host}:${port}`;
      if (error.code === 'EADDRINUSE') reject(new StartupError(variable, `${address} is already in use; set ${variable} to a free address`));
      else if (error.code === 'EACCES') reject(new StartupError(variable, `${address} needs privileges this process does not have; set ${variable} to a port above 1023`));
      else if (error.code === 'EADDRNOTAVAIL') reject(new StartupError(variable, `${host} is not an address of this machine; set ${variable} to one that is (or 0.0.0.0)`));
      else reject(error);
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/**
 * What a request meets before any route of the framework (the direct routes check their own):
 * body parsers that refuse what is not UTF-8, the input rules (text PostgreSQL can store, JSON
 * nesting within the limit), and JSON answers to requests Node's HTTP parser refuses.
 */
function installEdge(app: NestExpressApplication, bodyLimit: string, opaqueBody?: (path: string) => boolean): void {
  // `verify` is Nest's own only with `rawBody`, which no Arbor service uses.
  const verify = { verify: requireUtf8Body } as object;
  app.useBodyParser('json', { limit: bodyLimit, ...verify });
  app.useBodyParser('urlencoded', { limit: bodyLimit, extended: true, ...verify });
  app.use(inputLimits(opaqueBody));
  answerClientErrorsInJson(app.getHttpServer() as Server);
}

/**
 * The entry point of a service's main.ts. Bad configuration prints one line per bad variable
 * on stderr and exits with code 1; a StartupError (a taken port, an unreachable database) one
 * line naming its variable; any other start failure what was logged and its stack, exit code 1 too.
 */
export function runService<C extends ServiceConfig>(definition: ServiceDefinition<C>): void {
  startService(definition).then(
    (service) => {
      // Stop accepting, finish in-flight requests, flush telemetry, then exit 0.
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        new Logger('nest').log(`${signal} received, shutting down`);
        service.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        process.stderr.write(`${definition.schema.name}: refusing to start, bad configuration:\n`);
        for (const line of error.lines()) process.stderr.write(`  ${line}\n`);
      } else if (error instanceof StartupError) {
        process.stderr.write(`failed to start: ${error.message}\n`);
      } else {
        Logger.flush();
        process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      }
      process.exit(1);
    },
  );
}
