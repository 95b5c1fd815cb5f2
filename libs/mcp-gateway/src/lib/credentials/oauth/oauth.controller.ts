import { Controller, Delete, Get, HttpCode, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiNoContentResponse, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentCaller, RequirePermission, type VerifiedCaller } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { MCP_GATEWAY } from '../../admin/admin-access';
import { ServerRegistry } from '../../registry/server-registry';
import { CredentialsUnavailable } from '../credentials.exception';
import type { PerCallerUpstream } from '../upstream-credentials';
import { ConnectSignIn } from './connect-sign-in';
import { OAuthCredentials } from './oauth-credentials';

/** A person's connection to an `oauth` upstream, as GET /api/v1/me/connections lists it. */
export class ConnectionResponse {
  @ApiProperty()
  upstream!: string;

  @ApiProperty()
  connected!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the person connected (null: not connected).' })
  connected_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the current access token expires; it is renewed with the refresh token.' })
  expires_at!: string | null;

  @ApiProperty({ type: String, nullable: true })
  scope!: string | null;

  @ApiProperty({ format: 'uri', description: "Opens the consent at the upstream's authorisation server (connect, or connect again); good for 15 minutes." })
  connect_url!: string;
}

export class ConnectionListResponse {
  @ApiProperty({ type: [ConnectionResponse] })
  connections!: ConnectionResponse[];
}

/**
 * Per-person OAuth to third-party upstreams (tool servers and agents): the browser's side (the connect link, the callback)
 * and the person's own connections (`/api/v1/me/connections`, for the MCP gateway's UI).
 */
@ApiTags('connections')
@Controller()
export class OAuthController {
  constructor(
    private readonly oauth: OAuthCredentials,
    private readonly signIn: ConnectSignIn,
    private readonly registry: ServerRegistry,
  ) {}

  @Get('api/v1/me/connections')
  @ApiOkResponse({ type: ConnectionListResponse, description: "The caller's connection to each `oauth` upstream." })
  @ApiBearerAuth()
  @RequirePermission(MCP_GATEWAY)
  async connections(@CurrentCaller() caller: VerifiedCaller | undefined): Promise<ConnectionListResponse> {
    const views = await this.oauth.connections(this.oauthUpstreams(), subjectOf(caller));
    return {
      connections: views.map((view) => ({
        upstream: view.upstream,
        connected: view.connected,
        connected_at: view.connectedAt?.toISOString() ?? null,
        expires_at: view.expiresAt?.toISOString() ?? null,
        scope: view.scope ?? null,
        connect_url: view.connectUrl,
      })),
    };
  }

  @Delete('api/v1/me/connections/:upstream')
  @ApiNoContentResponse({ description: 'Disconnected: the stored tokens are gone.' })
  @ApiBearerAuth()
  @HttpCode(204)
  @RequirePermission(MCP_GATEWAY)
  async disconnect(@CurrentCaller() caller: VerifiedCaller | undefined, @Param('upstream') name: string): Promise<void> {
    const upstream = this.oauthUpstreams().find((candidate) => candidate.name === name);
    if (!upstream || !(await this.oauth.disconnect(upstream, subjectOf(caller)))) {
      throw new ApiError(404, 'connection_not_found', `You have no connection to upstream "${excerpt(name)}".`);
    }
  }

  /** The connect link of a tool error or of the connections API: first the browser says who it is, at the suite's identity provider. */
  @Get('oauth/connect/:upstream')
  @ApiExcludeEndpoint()
  async connect(@Req() req: Request, @Param('upstream') name: string, @Query('ticket') ticket: string | undefined, @Res() res: Response): Promise<void> {
    const upstream = this.oauthUpstreams().find((candidate) => candidate.name === name);
    if (!upstream) return page(req, res, 404, 'upstream_not_found', 'Not connected', `There is no upstream "${excerpt(name)}" to connect to.`);
    try {
      this.oauth.ticketSubject(upstream, ticket ?? '');
      res.redirect(302, (await this.signIn.signInUrl(upstream.name, ticket ?? '')).href);
    } catch (error) {
      if (!(error instanceof CredentialsUnavailable)) throw error;
      page(req, res, 400, 'connect_refused', 'Not connected', error.message);
    }
  }

  /** Back from the suite's identity provider: the person the link was made for goes on to the upstream's authorisation server; anyone else stops here. */
  @Get('oauth/signed-in')
  @ApiExcludeEndpoint()
  async signedIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    try {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      const signedIn = await this.signIn.complete(new URL(`${this.signIn.callbackUrl()}${query}`));
      const upstream = this.oauthUpstreams().find((candidate) => candidate.name === signedIn.upstream);
      if (!upstream) return page(req, res, 404, 'upstream_not_found', 'Not connected', `There is no upstream "${excerpt(signedIn.upstream)}" to connect to.`);
      if (this.oauth.ticketSubject(upstream, signedIn.ticket) !== signedIn.subject) {
        return page(
          req,
          res,
          403,
          'connect_link_not_yours',
          'Not connected',
          'This connect link was made for another person. Ask for your own by calling the tool, or from your connections.',
        );
      }
      res.redirect(302, (await this.oauth.authorizationUrl(upstream, signedIn.ticket)).href);
    } catch (error) {
      if (!(error instanceof CredentialsUnavailable)) throw error;
      page(req, res, 400, 'connect_refused', 'Not connected', error.message);
    }
  }

  /** Where the upstream's authorisation server sends the browser back after the person's consent. */
  @Get('oauth/callback')
  @ApiExcludeEndpoint()
  async callback(@Req() req: Request, @Res() res: Response, @Query('state') state: string | undefined, @Query('error') refused: string | undefined): Promise<void> {
    const name = state === undefined ? undefined : this.oauth.stateUpstream(state);
    const upstream = name === undefined ? undefined : this.oauthUpstreams().find((candidate) => candidate.name === name);
    if (!upstream) return page(req, res, 400, 'consent_not_valid', 'Not connected', 'This consent is not valid or has expired; start again from the connect link.');
    if (refused !== undefined)
      return page(
        req,
        res,
        400,
        'consent_refused',
        'Not connected',
        `The authorisation server of upstream "${upstream.name}" answered ${excerpt(refused)}; nothing was connected.`,
      );
    try {
      // The callback as the authorisation server was told it (MCPGW_PUBLIC_URL's), with the answer's query.
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      await this.oauth.complete(upstream, new URL(`${this.oauth.callbackUrl()}${query}`));
    } catch (error) {
      if (!(error instanceof CredentialsUnavailable)) throw error;
      return page(req, res, 400, 'connect_refused', 'Not connected', error.message);
    }
    page(req, res, 200, 'connected', 'Connected', `Your account at upstream "${upstream.name}" is connected. You can close this page and call its tools again.`);
  }

  /** The `oauth` upstreams, MCP servers and A2A agents alike (one namespace: a name is one or the other). */
  private oauthUpstreams(): PerCallerUpstream[] {
    return [...this.registry.upstreams(), ...this.registry.agents()].flatMap((upstream) =>
      upstream.auth?.type === 'oauth' ? [{ name: upstream.name, url: upstream.url, auth: upstream.auth }] : [],
    );
  }
}

/** RequirePermission lets persons only through; their `sub` keys the connections. */
function subjectOf(caller: VerifiedCaller | undefined): string {
  if (caller?.kind !== 'person') throw new ApiError(403, 'forbidden', 'Connections belong to persons: sign in with your own token.');
  return caller.subject;
}

/**
 * The end of a browser's step as a page for people; as the suite's JSON error envelope (or
 * `{connected: true}`) for a client that does not ask for HTML, so that scripts and tests read the
 * code rather than a page.
 */
function page(req: Request, res: Response, status: number, code: string, title: string, message: string): void {
  res.status(status).set('cache-control', 'no-store');
  if (req.accepts(['json', 'html']) !== 'html') {
    res.json(status < 400 ? { connected: true, message } : { error: { code, message } });
    return;
  }
  res
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
        `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`,
    );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
