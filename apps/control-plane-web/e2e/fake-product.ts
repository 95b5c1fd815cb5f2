import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { Controller, Get, Headers, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ApiError, ErrorEnvelopeFilter, ProductWebUiModule } from '@arbor/platform';
import { FIXTURE_PRODUCT, type Hello } from './fixture-product/src/fixture-api';

export interface FakeProduct {
  url: string;
  /** preferred_username of every token the summary was asked with, in order. */
  callers: string[];
  close(): Promise<void>;
}

/**
 * A product that serves the contract's dashboard summary to the control plane's origin (CORS as
 * a real product configures it), answering for whoever's token it was given.
 */
export async function startFakeProduct(product: string, title: string, allowedOrigin: string): Promise<FakeProduct> {
  const callers: string[] = [];
  const server: Server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', allowedOrigin);
    res.setHeader('vary', 'origin');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-headers': 'authorization', 'access-control-allow-methods': 'GET' }).end();
      return;
    }
    if (req.url !== '/api/v1/dashboard/summary') return void res.writeHead(404).end();
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return void res.writeHead(401).end();
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { preferred_username?: string; aud?: string[] | string };
    if (![claims.aud].flat().includes(product)) return void res.writeHead(403).end();
    callers.push(claims.preferred_username ?? '?');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        product,
        title,
        status: 'ok',
        tiles: [
          {
            label: 'Requests today',
            value: 1234,
            unit: 'requests',
            breakdown: [
              { project: 'alpha', value: 1200 },
              { project: 'gamma', value: 34 },
            ],
          },
          // 26 cheap calls, as an exact decimal string and as a float with its noise.
          {
            label: 'Spend today',
            value: '0.0012932500',
            unit: 'USD',
            breakdown: [
              { project: 'alpha', value: 0.0012932500000000001 },
              { project: 'gamma', value: '0.0000432500' },
            ],
          },
          { label: 'Top aliases this month', value: 'claude-sonnet-4-5 ($0.0013), gpt-4o-mini ($0.0001), text-embedding-3-small ($0.0000)', unit: null },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    callers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A product that is down: whatever connects is dropped at once, as by a crashed process's host. */
export async function startDroppingEveryConnection(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createTcpServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Where control-plane-web's build-fixture-product-ui target leaves the fixture product's UI. */
const FIXTURE_UI_BUILD = path.resolve(__dirname, '../../../dist/tests/fixture-product-ui');

export interface FixtureProductOptions {
  /** The origin the test registered for it (CP_SUITE_FIXTURE_PRODUCT_URL, its realm client's redirects); it listens there. */
  port: number;
  issuer: string;
  /** Its public UI client in the test's realm. */
  clientId: string;
  controlPlaneUrl: string;
}

/**
 * Another team's product with a UI of its own, as libs/contract's README ("Add a UI to your
 * product") has it: the fixture UI (e2e/fixture-product, built on @arbor/ui-shell) served by
 * ProductWebUiModule as the gateways serve theirs, and one API route that verifies the person's
 * token (issuer, audience `fixture-product`) and says whose it is.
 */
export async function startFixtureProduct(options: FixtureProductOptions): Promise<{ url: string; close(): Promise<void> }> {
  const { issuer } = options;
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));

  @Controller('api/v1')
  class HelloController {
    @Get('hello')
    async hello(@Headers('authorization') authorization = ''): Promise<Hello> {
      const token = /^Bearer (.+)$/.exec(authorization)?.[1];
      const verified = token ? await jwtVerify(token, keys, { issuer, audience: FIXTURE_PRODUCT.key }).catch(() => undefined) : undefined;
      if (!verified) throw new ApiError(401, 'unauthenticated', `A bearer token of ${issuer} for ${FIXTURE_PRODUCT.key} is required.`);
      return { product: FIXTURE_PRODUCT.key, username: String(verified.payload['preferred_username']) };
    }
  }

  @Module({
    imports: [
      ProductWebUiModule.forRoot({
        title: FIXTURE_PRODUCT.title,
        webRoot: FIXTURE_UI_BUILD,
        signIn: { issuer, clientId: options.clientId, controlPlaneUrl: options.controlPlaneUrl },
        signInSettings: [],
        pages: /^\/(auth\/callback)?\/?$/,
      }),
    ],
    controllers: [HelloController],
  })
  class FixtureProductModule {}

  const app = await NestFactory.create(FixtureProductModule, { logger: false });
  app.useGlobalFilters(new ErrorEnvelopeFilter());
  await app.listen(options.port, '127.0.0.1');
  return { url: `http://127.0.0.1:${options.port}`, close: () => app.close() };
}
