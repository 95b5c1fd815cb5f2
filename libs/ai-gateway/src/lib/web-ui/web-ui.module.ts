import { DynamicModule, Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { webUiMiddleware } from '@arbor/platform';
import { AiGatewayUiConfigController, WEB_UI_OPTIONS, type AiGatewayWebUiOptions } from './ui-config.controller';

/**
 * The pages of the AI gateway's UI (apps/ai-gateway-web's routes, and its sign-in callback). Only
 * these paths, asked for as HTML, are the UI: every other path is the gateway's, as before.
 */
export const AI_GATEWAY_UI_PAGES = /^\/(keys(\/[^/]+)?|usage|catalogue|auth\/callback)?\/?$/;

/** The AI gateway's UI at `/` (served as the control plane serves its own) and the public facts it starts from. */
@Module({})
export class AiGatewayWebUiModule implements NestModule {
  static forRoot(options: AiGatewayWebUiOptions): DynamicModule {
    return { module: AiGatewayWebUiModule, controllers: [AiGatewayUiConfigController], providers: [{ provide: WEB_UI_OPTIONS, useValue: options }] };
  }

  constructor(@Inject(WEB_UI_OPTIONS) private readonly options: AiGatewayWebUiOptions) {}

  configure(consumer: MiddlewareConsumer): void {
    if (!this.options.webRoot) return;
    const signIn = this.options.signIn;
    const origins = signIn ? [signIn.issuer, signIn.controlPlaneUrl].map((url) => new URL(url).origin) : [];
    consumer
      .apply(webUiMiddleware({ root: this.options.webRoot, connectOrigins: origins, isPage: (path) => AI_GATEWAY_UI_PAGES.test(path) }))
      .forRoutes({ path: '{/*splat}', method: RequestMethod.GET });
  }
}
