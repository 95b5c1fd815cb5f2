import { DynamicModule, Module } from '@nestjs/common';
import { TokenVerifier, verifierProblems } from '../identity/token-verifier';
import { controlPlaneSyncController } from './control-plane-sync.controller';
import { ControlPlaneSyncOptions, resolveSyncOptions, SYNC_OPTIONS, SYNC_VERIFIER } from './control-plane-sync.options';
import { ProjectSyncReceiver } from './project-sync-receiver';

/**
 * The product side of project sync: `POST <path>` (default /api/v1/sync/control-plane/projects)
 * accepts the control plane's machine token for this product's audience, validates `{slugs}`,
 * awaits the product's handler and answers 204 (500 when the handler throws, so it is retried).
 * Its token verification is its own instance, seen by this module only: the product's own
 * authentication (any audience) and this one never see each other.
 */
@Module({})
export class ControlPlaneSyncModule {
  static forRoot(options: ControlPlaneSyncOptions): DynamicModule {
    const { resolved, problems } = resolveSyncOptions(options);
    problems.push(...verifierProblems(options));
    if (problems.length > 0) throw new Error(`ControlPlaneSyncModule.forRoot: ${problems.join('; ')}`);
    const verifier = new TokenVerifier({
      issuer: options.issuer,
      audience: options.audience,
      ...(options.jwksUri === undefined ? {} : { jwksUri: options.jwksUri }),
    });
    return {
      module: ControlPlaneSyncModule,
      controllers: [controlPlaneSyncController(resolved.path)],
      providers: [{ provide: SYNC_OPTIONS, useValue: resolved }, { provide: SYNC_VERIFIER, useValue: verifier }, ProjectSyncReceiver],
    };
  }
}
