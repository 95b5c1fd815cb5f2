import { Controller, Get, Param, Req, UseFilters, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { DeploymentRouter } from './deployment-router';
import { ANTHROPIC_MESSAGES } from './endpoints/anthropic-messages/anthropic-messages.codec';
import { clientCodec } from './endpoints/client-codec';
import { ClientEnvelopeErrorFilter } from './client-envelope-error.filter';
import { unknownModel } from './gateway-errors';
import { gatewayCaller, GatewayKeyGuard } from './gateway-key.guard';
import { mayCallAlias } from './calls/requested-alias';

interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** Anthropic's model object (Anthropic-format). */
interface AnthropicModelObject {
  type: 'model';
  id: string;
  display_name: string;
  created_at: string;
}

interface AnthropicModelList {
  data: AnthropicModelObject[];
  has_more: false;
  first_id: string | null;
  last_id: string | null;
}

/** Anthropic's clients get the list in Anthropic's shape. */
function wantsAnthropic(request: Request): boolean {
  return clientCodec(request.headers) === ANTHROPIC_MESSAGES;
}

/**
 * GET /v1/models lists aliases, never provider model names (a wildcard alias lists the known
 * models of its provider under the names it serves them by); a virtual key sees only its own. In
 * Anthropic's shape when the request carries `anthropic-version` (all aliases on one page).
 */
@Controller()
@UseGuards(GatewayKeyGuard)
@UseFilters(ClientEnvelopeErrorFilter)
export class ModelsController {
  private readonly started = new Date();
  private readonly created = Math.floor(this.started.getTime() / 1000);

  constructor(private readonly router: DeploymentRouter) {}

  @Get(['v1/models', 'models'])
  list(@Req() request: Request): { object: 'list'; data: ModelObject[] } | AnthropicModelList {
    const caller = gatewayCaller(request);
    // LiteLLM's `return_wildcard_routes=true` adds the wildcard aliases themselves (`anthropic/*`).
    const withWildcards = String(request.query['return_wildcard_routes']) === 'true';
    const aliases = this.router.listedModels(withWildcards).filter((alias) => mayCallAlias(caller, alias, this.router));
    if (wantsAnthropic(request)) {
      return { data: aliases.map((alias) => this.anthropicModel(alias)), has_more: false, first_id: aliases[0] ?? null, last_id: aliases.at(-1) ?? null };
    }
    return { object: 'list', data: aliases.map((alias) => this.model(alias)) };
  }

  // Aliases may contain slashes (`openai/gpt-4o`), hence the wildcard.
  @Get(['v1/models/*id', 'models/*id'])
  get(@Req() request: Request, @Param('id') id: string | string[]): ModelObject | AnthropicModelObject {
    const alias = Array.isArray(id) ? id.join('/') : id;
    if (!mayCallAlias(gatewayCaller(request), alias, this.router) || !this.router.has(alias)) throw unknownModel(alias);
    return wantsAnthropic(request) ? this.anthropicModel(alias) : this.model(alias);
  }

  private model(alias: string): ModelObject {
    return { id: alias, object: 'model', created: this.created, owned_by: 'arbor' };
  }

  private anthropicModel(alias: string): AnthropicModelObject {
    return { type: 'model', id: alias, display_name: alias, created_at: this.started.toISOString() };
  }
}
