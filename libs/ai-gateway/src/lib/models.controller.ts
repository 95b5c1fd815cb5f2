import { Controller, Get, Param, Req, UseFilters, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { DeploymentRouter } from './deployment-router';
import { FamilyAErrorFilter } from './family-a-error.filter';
import { unknownModel } from './gateway-errors';
import { gatewayCaller, GatewayKeyGuard } from './gateway-key.guard';
import { mayUseAlias } from './keys/key-verifier';

interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** GET /v1/models lists aliases, never provider model names; a virtual key sees only its own. */
@Controller()
@UseGuards(GatewayKeyGuard)
@UseFilters(FamilyAErrorFilter)
export class ModelsController {
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly router: DeploymentRouter) {}

  @Get(['v1/models', 'models'])
  list(@Req() request: Request): { object: 'list'; data: ModelObject[] } {
    const caller = gatewayCaller(request);
    const aliases = this.router.aliases().filter((alias) => mayUseAlias(caller, alias));
    return { object: 'list', data: aliases.map((alias) => this.model(alias)) };
  }

  // Aliases may contain slashes (`openai/gpt-4o`), hence the wildcard.
  @Get(['v1/models/*id', 'models/*id'])
  get(@Req() request: Request, @Param('id') id: string | string[]): ModelObject {
    const alias = Array.isArray(id) ? id.join('/') : id;
    if (!mayUseAlias(gatewayCaller(request), alias) || !this.router.has(alias)) throw unknownModel(alias);
    return this.model(alias);
  }

  private model(alias: string): ModelObject {
    return { id: alias, object: 'model', created: this.created, owned_by: 'arbor' };
  }
}
