import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { GuardedRequest, PermittedProjects, RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { AI_GATEWAY, OPERATOR, READERS } from '../admin/admin-access';
import { BudgetLimits, type LimitChange } from '../budgets/budget-limits';
import { Budgets } from '../budgets/budgets';
import { PROJECT_SLUG } from '../keys/dto/key-fields';
import { KeysService } from '../keys/keys.service';
import { liteLlmKey, type LiteLlmKey } from '../litellm-keys/litellm-key.response';
import { refuseGiven, requirePermitted } from '../litellm-keys/litellm-fields';
import { ControlPlaneProjects } from '../projects/control-plane-projects';
import { TeamInfoQuery, UNSERVED_TEAM_FIELDS, UpdateTeamDto } from './litellm-team.dto';
import { liteLlmTeam, type LiteLlmTeam } from './litellm-team.response';

type Permitted = 'all' | string[];

const PROJECT = 'project';

/**
 * LiteLLM's team API for the scripts that set team budgets: a team is a control-plane project
 * (`team_id` = its slug). `/team/update` sets the project's budget (`max_budget`,
 * `budget_duration`), which budgets/Budgets enforces on every call of every key of the project;
 * `/team/info` and `/team/list` show it and its spend. Projects themselves are made in the control
 * plane, so `/team/new` says so. Authorised as the key API: the master key, or ai-gateway.operator
 * (to read, ai-gateway.viewer) on the project.
 */
@ApiTags('litellm team API')
@ApiBearerAuth()
@Controller('team')
export class LiteLlmTeamsController {
  constructor(
    private readonly limits: BudgetLimits,
    private readonly budgets: Budgets,
    private readonly keys: KeysService,
    private readonly projects: ControlPlaneProjects,
  ) {}

  @Post('new')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  create(): never {
    throw new ApiError(
      400,
      'not_served',
      "Teams are the control plane's projects here: make the project in the control plane, then set its budget with /team/update {team_id: <project slug>, max_budget, budget_duration}.",
    );
  }

  @Get('info')
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  async info(@PermittedProjects() permitted: Permitted, @Query() query: TeamInfoQuery): Promise<{ team_id: string; team_info: LiteLlmTeam; keys: LiteLlmKey[] }> {
    const slug = checkedSlug(query.team_id);
    requirePermitted(permitted, slug, 'ai-gateway.viewer or ai-gateway.operator');
    const keys = await this.keys.list([slug]);
    const team = await this.team(slug);
    if (!team && keys.length === 0 && !this.projects.configured) throw new ApiError(404, 'team_not_found', `No project "${excerpt(slug)}" has keys or a budget here.`);
    if (!team && keys.length === 0) await this.projects.require(slug);
    return { team_id: slug, team_info: team ?? liteLlmTeam(slug, null, { spend: 0, periodEnd: null }), keys: keys.map((row) => liteLlmKey(row)) };
  }

  @Get('list')
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  async list(@PermittedProjects() permitted: Permitted): Promise<LiteLlmTeam[]> {
    const slugs = new Set([...(await this.keys.list(permitted)).map((row) => row.project), ...(await this.limits.list(PROJECT)).map((row) => row.subject)]);
    const teams: LiteLlmTeam[] = [];
    for (const slug of [...slugs].sort()) {
      if (permitted !== 'all' && !permitted.includes(slug)) continue;
      teams.push((await this.team(slug)) ?? liteLlmTeam(slug, null, { spend: 0, periodEnd: null }));
    }
    return teams;
  }

  @Post('update')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async update(@Req() request: GuardedRequest, @PermittedProjects() permitted: Permitted, @Body() body: UpdateTeamDto): Promise<{ team_id: string; data: LiteLlmTeam }> {
    for (const [field, reason] of Object.entries(UNSERVED_TEAM_FIELDS)) refuseGiven(body, [field], reason);
    const slug = checkedSlug(body.team_id);
    requirePermitted(permitted, slug, 'ai-gateway.operator');
    // With a control plane the project must exist there (404 project_not_found); the master key passes while it cannot be asked.
    await this.projects.require(slug, request.controlPlaneCaller === undefined);
    const change: LimitChange = {};
    if (body.max_budget !== undefined) change.maxBudget = body.max_budget;
    if (body.budget_duration !== undefined) change.budgetDuration = body.budget_duration;
    if (body.metadata !== undefined) change.metadata = body.metadata ?? {};
    await this.limits.save(PROJECT, slug, change);
    return { team_id: slug, data: (await this.team(slug)) as LiteLlmTeam };
  }

  /** The project's budget as a team, or null when it has none. */
  private async team(slug: string): Promise<LiteLlmTeam | null> {
    const row = await this.limits.find(PROJECT, slug);
    if (!row) return null;
    return liteLlmTeam(slug, row, await this.budgets.spentNow(PROJECT, slug, row.budgetDuration));
  }
}

function checkedSlug(slug: string): string {
  if (!PROJECT_SLUG.test(slug)) {
    throw new ApiError(400, 'invalid_request', `team_id must be a project slug (1 to 64 lower-case letters, digits and hyphens), got "${excerpt(slug)}".`, {
      fields: { team_id: ['must be a project slug'] },
    });
  }
  return slug;
}
