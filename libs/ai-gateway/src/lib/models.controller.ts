import { Controller, Get, Param, UseFilters, UseGuards } from '@nestjs/common';
import { DeploymentRouter } from './deployment-router';
import { FamilyAErrorFilter } from './family-a-error.filter';
import { unknownModel } from './gateway-errors';
import { MasterKeyGuard } from './master-key.guard';

interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** GET /v1/models lists aliases, never provider model names. */
@Controller()
@UseGuards(MasterKeyGuard)
@UseFilters(FamilyAErrorFilter)
export class ModelsController {
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly router: DeploymentRouter) {}

  @Get(['v1/models', 'models'])
  list(): { object: 'list'; data: ModelObject[] } {
    return { object: 'list', data: this.router.aliases().map((alias) => this.model(alias)) };
  }

  // Aliases may contain slashes (`openai/gpt-4o`), hence the wildcard.
  @Get(['v1/models/*id', 'models/*id'])
  get(@Param('id') id: string | string[]): ModelObject {
    const alias = Array.isArray(id) ? id.join('/') : id;
    if (!this.router.has(alias)) throw unknownModel(alias);
    return this.model(alias);
  }

  private model(alias: string): ModelObject {
    return { id: alias, object: 'model', created: this.created, owned_by: 'arbor' };
  }
}
