import { Controller, DynamicModule, Get, Header, Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../errors/api-error';
import { webUiMiddleware } from './web-ui.middleware';

export interface ProductWebUiOptions {
  /** The product's name as people read it, e.g. "MCP gateway". */
  title: string;
  /** The built single-page app (dist/apps/<service>/web); without it only /api/v1/ui/config is served. */
  webRoot?: string;
  /** The suite's sign-in, present when the product knows the control plane. */
  signIn?: { issuer: string; clientId: string; controlPlaneUrl: string };
  /** The settings that give `signIn`, named in the answer when it is missing (e.g. `AIGW_OIDC_ISSUER_URL, …`). */
  signInSettings: readonly string[];
  /**
   * The app's pages (its routes and `/auth/callback`): only these, asked for as HTML, are the UI;
   * every other path is the product's API as before.
   */
  pages: RegExp;
}

/** What the UI starts from, the shape @arbor/ui-shell reads (ProductUiConfig). */
export interface ProductUiConfigResponse {
  issuer: string;
  client_id: string;
  control_plane_url: string;
}

const PRODUCT_WEB_UI_OPTIONS = Symbol('PRODUCT_WEB_UI_OPTIONS');

@ApiTags('ui')
@Controller('api/v1/ui')
export class ProductUiConfigController {
  constructor(@Inject(PRODUCT_WEB_UI_OPTIONS) private readonly options: ProductWebUiOptions) {}

  /** Public, no token: the issuer and client the UI signs in with, and where the control plane is. */
  @Get('config')
  @Header('cache-control', 'no-cache')
  @ApiOperation({ summary: "What the product's web UI needs before sign-in: the OIDC issuer and client, and the control plane's address (public, no token)" })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['issuer', 'client_id', 'control_plane_url'],
      properties: { issuer: { type: 'string' }, client_id: { type: 'string' }, control_plane_url: { type: 'string' } },
    },
  })
  @ApiNotFoundResponse({ description: 'ui_not_configured: the product knows no control plane to sign people in through' })
  uiConfig(): ProductUiConfigResponse {
    const signIn = this.options.signIn;
    if (!signIn) {
      throw new ApiError(404, 'ui_not_configured', `The ${this.options.title}'s UI signs people in through the control plane: set ${this.options.signInSettings.join(', ')}.`);
    }
    return { issuer: signIn.issuer, client_id: signIn.clientId, control_plane_url: signIn.controlPlaneUrl };
  }
}

/**
 * A product's own web UI at `/`, served as the control plane serves its own (webUiMiddleware:
 * CSP with the issuer and the control plane as connect origins, caching, compression), and the
 * public facts it starts from at `GET /api/v1/ui/config`. A product joins the suite's UIs with
 * this and @arbor/ui-shell (libs/contract's README: "add a UI to your product").
 */
@Module({})
export class ProductWebUiModule implements NestModule {
  static forRoot(options: ProductWebUiOptions): DynamicModule {
    return { module: ProductWebUiModule, controllers: [ProductUiConfigController], providers: [{ provide: PRODUCT_WEB_UI_OPTIONS, useValue: options }] };
  }

  constructor(@Inject(PRODUCT_WEB_UI_OPTIONS) private readonly options: ProductWebUiOptions) {}

  configure(consumer: MiddlewareConsumer): void {
    if (!this.options.webRoot) return;
    const signIn = this.options.signIn;
    const origins = signIn ? [signIn.issuer, signIn.controlPlaneUrl].map((url) => new URL(url).origin) : [];
    const pages = this.options.pages;
    consumer
      .apply(webUiMiddleware({ root: this.options.webRoot, connectOrigins: origins, isPage: (path) => pages.test(path) }))
      .forRoutes({ path: '{/*splat}', method: RequestMethod.GET });
  }
}
