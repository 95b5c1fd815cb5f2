import { DynamicModule, Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { ControlPlaneConfig } from '@arbor/config';
import { webUiMiddleware } from '@arbor/platform';
import { UiConfigController } from './ui-config.controller';

/** Paths that keep their own meaning: the API, health and metrics are never the UI; every other path is a page of the app. */
const NOT_UI = /^\/(api(\/|$)|healthz$|readyz$|metrics$)/;

export interface WebUiModuleOptions {
  /** The built single-page app (dist/apps/control-plane-api/web); without it only /api/v1/ui/config is served. */
  webRoot?: string;
}

const WEB_UI_OPTIONS = Symbol('WEB_UI_OPTIONS');

/** The web UI at `/` and the public facts it starts from (`GET /api/v1/ui/config`). */
@Module({})
export class WebUiModule implements NestModule {
  static forRoot(options: WebUiModuleOptions): DynamicModule {
    return { module: WebUiModule, controllers: [UiConfigController], providers: [{ provide: WEB_UI_OPTIONS, useValue: options }] };
  }

  constructor(
    private readonly config: ControlPlaneConfig,
    @Inject(WEB_UI_OPTIONS) private readonly options: WebUiModuleOptions,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    if (!this.options.webRoot) return;
    const origins = [this.config.CP_OIDC_ISSUER_URL, ...Object.values(this.config.suiteUrls)].map((url) => new URL(url).origin);
    consumer
      .apply(webUiMiddleware({ root: this.options.webRoot, connectOrigins: origins, isPage: (path) => !NOT_UI.test(path) }))
      .forRoutes({ path: '{/*splat}', method: RequestMethod.GET });
  }
}
