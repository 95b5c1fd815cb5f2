// Test-only (not exported): a tiny Nest app with one route per auth decorator, on real HTTP.
import { Controller, Get, INestApplication, Module, Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ErrorEnvelopeFilter } from '@arbor/platform';
import { AuthModule } from '../auth.module';
import { AuthOptions } from '../auth-options';
import { AdminOnly, Authenticated, MachineOrAdmin } from '../guards/auth.decorators';
import { CurrentPrincipal } from '../principal/current-principal.decorator';
import type { Principal } from '../principal/principal';

@Controller()
class ProbeController {
  @Get('public')
  open(): { ok: true } {
    return { ok: true };
  }

  @Get('me')
  @Authenticated()
  me(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }

  @Get('ops')
  @MachineOrAdmin()
  ops(@CurrentPrincipal() principal: Principal): { subject: string } {
    return { subject: principal.subject };
  }

  @Get('admin')
  @AdminOnly()
  admin(@CurrentPrincipal() principal: Principal): { subject: string } {
    return { subject: principal.subject };
  }
}

/** A feature module apart from the root, as in the apps: hooks provided at the root must still be found. */
@Module({ controllers: [ProbeController] })
class ProbeModule {}

/** Starts the probe app; `providers` go into the root module (ADMIN_RESOLVER). */
export async function startAuthTestApp(options: AuthOptions, providers: Provider[] = []): Promise<INestApplication> {
  @Module({ imports: [AuthModule.forRoot(options), ProbeModule], providers })
  class RootModule {}

  const moduleRef = await Test.createTestingModule({ imports: [RootModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useGlobalFilters(new ErrorEnvelopeFilter());
  await app.init();
  return app;
}
