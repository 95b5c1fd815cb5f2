import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { errorFields } from '@arbor/observability';
import { answerOnSocket } from '../input/client-errors';
import { inputRefusalBody, requestTargetProblem } from '../input/input-limits.middleware';
import { excerpt } from '../input/input-rules';
import { pathPattern, type RouteEntry } from './route-patterns';

/** A WebSocket upgrade a feature serves (the AI gateway's Responses and realtime sockets, the MCP relay). */
export interface UpgradeRoute {
  /** The route pattern, for logs (`/v1/realtime`). */
  route: string;
  /** Every path pattern the route takes upgrades on (route-table syntax), for the route table: no other path is the route's. */
  paths: readonly string[];
  /** Whether this route takes an upgrade of `path` (the URL path, no query string). */
  matches(path: string): boolean;
  /** Checks the caller and completes (or refuses, with answerOnSocket) the upgrade. */
  handle(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> | void;
}

/**
 * The service's WebSocket upgrades: one `upgrade` listener on the HTTP server that hands each
 * upgrade to the route matching its path (refused with 400 when its path or query string breaks
 * the suite's input rules), and answers any other with a JSON 404 rather than leaving the socket
 * open. Features add theirs in `onModuleInit`.
 */
@Injectable()
export class UpgradeRoutes implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('UpgradeRoutes');
  private readonly routes: (UpgradeRoute & { patterns: RegExp[] })[] = [];
  private server?: Server;
  private readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(request, socket, head);

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  add(...routes: UpgradeRoute[]): void {
    for (const route of routes) this.routes.push({ ...route, patterns: route.paths.map(pathPattern) });
  }

  /** The upgrades' entries of the route table (an upgrade is a GET). */
  table(): RouteEntry[] {
    return this.routes.flatMap(({ route, paths }) => paths.map((path): RouteEntry => ({ router: 'upgrade', methods: ['GET'], path, route })));
  }

  onApplicationBootstrap(): void {
    if (this.routes.length === 0) return;
    this.server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    this.server.on('upgrade', this.onUpgrade);
  }

  onModuleDestroy(): void {
    this.server?.off('upgrade', this.onUpgrade);
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(request.url ?? '/', 'http://service').pathname;
    const route = this.routes.find((candidate) => candidate.patterns.some((pattern) => pattern.test(path)) && candidate.matches(path));
    if (!route) return answerOnSocket(socket, 404, { error: { code: 'not_found', message: `No WebSocket is served at ${excerpt(path)}.` } });
    // The edge's input rules for the request target, as on the direct routes.
    const problem = requestTargetProblem(request.url);
    if (problem) return answerOnSocket(socket, 400, inputRefusalBody(problem));
    const fail = (error: unknown) => {
      this.logger.error(`WebSocket upgrade of ${route.route} failed`, { err: errorFields(error) });
      if (socket.writable) answerOnSocket(socket, 500, { error: { code: 'internal_error', message: 'The server failed to handle the upgrade.' } });
    };
    try {
      const pending = route.handle(request, socket, head);
      if (pending) pending.catch(fail);
    } catch (error) {
      fail(error);
    }
  }
}
