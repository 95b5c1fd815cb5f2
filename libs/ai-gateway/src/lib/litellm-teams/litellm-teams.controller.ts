import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { GuardedRequest, PermittedProjects, RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { AI_GATEWAY, OPERATOR, READERS } from '../admin/admin-access';
import { BudgetLimits, type LimitChange } from '../budgets/budget-limits';
import { Budgets, personSubject } from '../budgets/budgets';
import { PROJECT_SLUG } from '../keys/dto/key-fields';
import { KeysService } from '../keys/keys.service';
import { liteLlmKey, type LiteLlmKey } from '../litellm-keys/litellm-key.response';
import { isDefault, refuseGiven, requirePermitted } from '../litellm-keys/litellm-fields';
import { ControlPlaneProjects } from '../projects/control-plane-projects';
import { AddTeamMemberDto, DeleteTeamMemberDto, TeamInfoQuery, UNSERVED_TEAM_FIELDS, UpdateTeamDto, UpdateTeamMemberDto } from './litellm-team.dto';
import { liteLlmTeam, liteLlmTeamMember, type LiteLlmTeam, type LiteLlmTeamMember } from './litellm-team.response';

type Permitted = 'all' | string[];

const PROJECT = 'project';
const PERSON = 'person';

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
  async info(
    @PermittedProjects() permitted: Permitted,
    @Query() query: TeamInfoQuery,
  ): Promise<{ team_id: string; team_info: LiteLlmTeam; keys: LiteLlmKey[]; team_memberships: LiteLlmTeamMember[] }> {
    const slug = checkedSlug(query.team_id);
    requirePermitted(permitted, slug, 'ai-gateway.viewer or ai-gateway.operator');
    const keys = await this.keys.list([slug]);
    const team = await this.team(slug);
    if (!team && keys.length === 0 && !this.projects.configured) throw new ApiError(404, 'team_not_found', `No project "${excerpt(slug)}" has keys or a budget here.`);
    if (!team && keys.length === 0) await this.projects.require(slug);
    return {
      team_id: slug,
      team_info: team ?? liteLlmTeam(slug, null, { spend: 0, periodEnd: null }),
      keys: keys.map((row) => liteLlmKey(row)),
      team_memberships: await this.members(slug),
    };
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
    if (body.models !== undefined) change.models = (body.models ?? []).filter((model) => model !== 'all-proxy-models');
    if (body.rpm_limit !== undefined) change.rpmLimit = body.rpm_limit;
    if (body.tpm_limit !== undefined) change.tpmLimit = body.tpm_limit;
    if (body.guardrails !== undefined) {
      this.keys.requireGuardrails(body.guardrails ?? []);
      change.guardrails = body.guardrails ?? [];
    }
    await this.limits.save(PROJECT, slug, change);
    return { team_id: slug, data: (await this.team(slug)) as LiteLlmTeam };
  }

  /**
   * LiteLLM's way of giving a person a budget in a team. The person's membership and role are the
   * control plane's: each member must have a role on the project there (400 user_not_in_project);
   * what is set here is their budget in the project (max_budget_in_team), on the calls of the keys
   * made for them (user_id on /key/generate).
   */
  @Post('member_add')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async addMember(
    @Req() request: GuardedRequest,
    @PermittedProjects() permitted: Permitted,
    @Body() body: AddTeamMemberDto,
  ): Promise<{ team_id: string; updated_team_memberships: LiteLlmTeamMember[] }> {
    const slug = checkedSlug(body.team_id);
    requirePermitted(permitted, slug, 'ai-gateway.operator');
    const members = Array.isArray(body.member) ? body.member : [body.member];
    if (members.length === 0 || members.length > 100) throw new ApiError(400, 'invalid_request', 'member names 1 to 100 members.', { fields: { member: ['1 to 100 members'] } });
    for (const member of members) {
      refuseGiven(member, ['user_email'], 'a person is named by user_id (their control-plane user id) here');
      if (member.role !== undefined && member.role !== 'user') refuseRole();
    }
    await this.projects.require(slug, request.controlPlaneCaller === undefined);
    for (const member of members) await this.projects.requireMember(slug, member.user_id, request.controlPlaneCaller === undefined);
    const updated: LiteLlmTeamMember[] = [];
    for (const member of members) updated.push(await this.saveMember(slug, member.user_id, body));
    return { team_id: slug, updated_team_memberships: updated };
  }

  @Post('member_update')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async updateMember(@Req() request: GuardedRequest, @PermittedProjects() permitted: Permitted, @Body() body: UpdateTeamMemberDto): Promise<LiteLlmTeamMember> {
    refuseGiven(body, ['user_email'], 'a person is named by user_id (their control-plane user id) here');
    refuseGiven(body, ['tpm_limit', 'rpm_limit'], "a person's rate limits are their keys' (rpm_limit, tpm_limit on /key/generate)");
    if (!isDefault(body.role) && body.role !== 'user') refuseRole();
    const slug = checkedSlug(body.team_id);
    requirePermitted(permitted, slug, 'ai-gateway.operator');
    await this.projects.require(slug, request.controlPlaneCaller === undefined);
    await this.projects.requireMember(slug, body.user_id, request.controlPlaneCaller === undefined);
    return this.saveMember(slug, body.user_id, body);
  }

  /** Removes the person's budget in the project; their membership stays the control plane's. */
  @Post('member_delete')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async deleteMember(@PermittedProjects() permitted: Permitted, @Body() body: DeleteTeamMemberDto): Promise<{ team_id: string; user_id: string }> {
    refuseGiven(body, ['user_email'], 'a person is named by user_id (their control-plane user id) here');
    const slug = checkedSlug(body.team_id);
    requirePermitted(permitted, slug, 'ai-gateway.operator');
    await this.limits.delete(PERSON, personSubject(slug, body.user_id));
    return { team_id: slug, user_id: body.user_id };
  }

  private async saveMember(slug: string, userId: string, body: { max_budget_in_team?: number | null; budget_duration?: string | null }): Promise<LiteLlmTeamMember> {
    const change: LimitChange = {};
    if (body.max_budget_in_team !== undefined) change.maxBudget = body.max_budget_in_team;
    if (body.budget_duration !== undefined) change.budgetDuration = body.budget_duration;
    const row = await this.limits.save(PERSON, personSubject(slug, userId), change);
    return liteLlmTeamMember(slug, userId, row, await this.budgets.spentNow(PERSON, row.subject, row.budgetDuration));
  }

  /** The project's members with a budget of their own, as /team/info's team_memberships. */
  private async members(slug: string): Promise<LiteLlmTeamMember[]> {
    const prefix = personSubject(slug, '');
    const rows = (await this.limits.list(PERSON)).filter((row) => row.subject.startsWith(prefix));
    const members: LiteLlmTeamMember[] = [];
    for (const row of rows) members.push(liteLlmTeamMember(slug, row.subject.slice(prefix.length), row, await this.budgets.spentNow(PERSON, row.subject, row.budgetDuration)));
    return members;
  }

  /** The project's budget as a team, or null when it has none. */
  private async team(slug: string): Promise<LiteLlmTeam | null> {
    const row = await this.limits.find(PROJECT, slug);
    if (!row) return null;
    return liteLlmTeam(slug, row, await this.budgets.spentNow(PROJECT, slug, row.budgetDuration));
  }
}

function refuseRole(): never {
  throw new ApiError(400, 'unsupported_field', "role: a person's role on a project is the control plane's; give them ai-gateway.operator or ai-gateway.viewer there.", {
    fields: { role: ["the control plane's"] },
  });
}

function checkedSlug(slug: string): string {
  if (!PROJECT_SLUG.test(slug)) {
    throw new ApiError(400, 'invalid_request', `team_id must be a project slug (1 to 64 lower-case letters, digits and hyphens), got "${excerpt(slug)}".`, {
      fields: { team_id: ['must be a project slug'] },
    });
  }
  return slug;
}
