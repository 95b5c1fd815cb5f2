import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorFunction } from '@nestjs/terminus';
import type { Response } from 'express';

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/**
 * `/healthz`: the process is up. `/readyz`: the same answer when the service declares no
 * readiness checks (the control plane, by its contract), otherwise its dependencies are checked
 * and a failing one answers 503 naming it.
 */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    @Inject(READINESS_CHECKS) private readonly checks: HealthIndicatorFunction[],
  ) {}

  @Get('healthz')
  @HttpCode(200)
  @Header('content-type', 'text/plain; charset=utf-8')
  @Header('cache-control', 'no-store')
  healthz(): string {
    return 'ok';
  }

  @Get('readyz')
  @Header('cache-control', 'no-store')
  async readyz(@Res() response: Response): Promise<void> {
    if (this.checks.length === 0) {
      response.status(200).type('text/plain').send('ok');
      return;
    }
    try {
      await this.health.check(this.checks);
      response.status(200).type('text/plain').send('ok');
    } catch (error) {
      const details = (error as { response?: { error?: Record<string, unknown> } }).response?.error ?? {};
      response.status(503).json({
        error: { code: 'not_ready', message: `Not ready: ${Object.keys(details).join(', ') || 'a dependency failed'}`, details },
      });
    }
  }
}
