import { DynamicModule, Module } from '@nestjs/common';
import { TokenVerifier, verifierProblems } from '../identity/token-verifier';
import { ControlPlaneClient } from '../client/control-plane-client';
import { CALLER_VERIFIER, CONTROL_PLANE_NOT_CONFIGURED, CONTROL_PLANE_OPTIONS, ControlPlaneModuleOptions, ControlPlaneNotConfiguredOptions } from './control-plane.options';
import { PermissionGuard } from './permission.guard';

/**
 * Registers, app-wide, the ControlPlaneClient (inject it anywhere), the verifier of your callers'
 * tokens (inject TokenVerifier, e.g. for a WebSocket upgrade) and the guard behind `@RequirePermission`.
 */
@Module({})
export class ControlPlaneModule {
  static forRoot(options: ControlPlaneModuleOptions): DynamicModule {
    const problems = verifierProblems(options);
    let client: ControlPlaneClient | undefined;
    try {
      client = new ControlPlaneClient(options);
    } catch (error) {
      problems.push((error as Error).message.replace(/^ControlPlaneClient: /, ''));
    }
    if (problems.length > 0 || !client) throw new Error(`ControlPlaneModule.forRoot: ${problems.join('; ')}`);
    const verifier = new TokenVerifier({
      issuer: options.issuer,
      audience: options.audience,
      ...(options.jwksUri === undefined ? {} : { jwksUri: options.jwksUri }),
    });
    return {
      module: ControlPlaneModule,
      global: true,
      providers: [
        { provide: CONTROL_PLANE_OPTIONS, useValue: options },
        { provide: ControlPlaneClient, useValue: client },
        { provide: CALLER_VERIFIER, useValue: verifier },
        { provide: TokenVerifier, useValue: verifier },
        PermissionGuard,
      ],
      exports: [CONTROL_PLANE_OPTIONS, ControlPlaneClient, CALLER_VERIFIER, TokenVerifier, PermissionGuard],
    };
  }

  /**
   * For a product that also runs without the suite (its settings absent): `@RequirePermission`
   * routes still accept your own credential (`authorizeOwnCredential`), and answer a token with
   * `503 control_plane_not_configured` and your message; nothing else of this module is provided.
   */
  static notConfigured(options: ControlPlaneNotConfiguredOptions): DynamicModule {
    return {
      module: ControlPlaneModule,
      global: true,
      providers: [{ provide: CONTROL_PLANE_NOT_CONFIGURED, useValue: options }, PermissionGuard],
      exports: [CONTROL_PLANE_NOT_CONFIGURED, PermissionGuard],
    };
  }
}
