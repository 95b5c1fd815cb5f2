import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@arbor/auth';
import { controlPlaneSyncController } from './control-plane-sync.controller';
import { ControlPlaneSyncOptions, resolveSyncOptions, SYNC_OPTIONS } from './control-plane-sync.options';
import { ProjectSyncReceiver } from './project-sync-receiver';

/**
 * The product side of project sync: `POST <path>` (default /api/v1/sync/control-plane/projects)
 * accepts the control plane's machine token for this product's audience, validates `{slugs}`,
 * awaits the product's handler and answers 204 (500 when the handler throws, so it is retried).
 */
@Module({})
export class ControlPlaneSyncModule {
  static forRoot(options: ControlPlaneSyncOptions): DynamicModule {
    const { resolved, problems } = resolveSyncOptions(options);
    let verification: DynamicModule | undefined;
    try {
      verification = scopedTokenVerification(options);
    } catch (error) {
      problems.push((error instanceof Error ? error.message : String(error)).replace(/^AuthModule\.forRoot: /, ''));
    }
    if (problems.length > 0 || !verification) throw new Error(`ControlPlaneSyncModule.forRoot: ${problems.join('; ')}`);
    return {
      module: ControlPlaneSyncModule,
      imports: [verification],
      controllers: [controlPlaneSyncController(resolved.path)],
      providers: [{ provide: SYNC_OPTIONS, useValue: resolved }, ProjectSyncReceiver],
    };
  }
}

/**
 * @arbor/auth's verification (issuer, audience, JWKS, algorithm allow-list) for this module only.
 * AuthModule.forRoot is global; a second global instance would race the product's own AuthModule
 * for every guard in the app. Imported here non-global, it serves this module alone: Nest resolves
 * a module's explicit imports before global modules, so the product's AuthModule (any audience)
 * and this one never see each other.
 */
function scopedTokenVerification(options: ControlPlaneSyncOptions): DynamicModule {
  const auth = AuthModule.forRoot({
    issuer: options.issuer,
    audience: options.audience,
    ...(options.jwksUri === undefined ? {} : { jwksUri: options.jwksUri }),
  });
  return { ...auth, global: false };
}
