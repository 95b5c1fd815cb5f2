import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { PermittedProjects, RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { AI_GATEWAY, READERS } from '../admin/admin-access';
import { BudgetLimits } from '../budgets/budget-limits';
import { Budgets } from '../budgets/budgets';
import { KeysService } from '../keys/keys.service';
import { liteLlmKey, type LiteLlmKey } from '../litellm-keys/litellm-key.response';
import { liteLlmTeamMember, type LiteLlmTeamMember } from '../litellm-teams/litellm-team.response';
import { addUsd } from '../pricing/usd';

type Permitted = 'all' | string[];

const PERSON = 'person';

export class UserInfoQuery {
  @ApiProperty({ example: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b', description: 'A control-plane user id.' })
  @IsString()
  @MaxLength(128)
  user_id!: string;
}

interface LiteLlmUserInfo {
  user_id: string;
  user_email: null;
  /** Personal budgets outside a project are not served: a person's budgets are per project (teams). */
  max_budget: null;
  /** USD the person's keys spent, lifetime. */
  spend: number;
  models: never[];
  /** The projects the person has keys or a budget in. */
  teams: string[];
}

/**
 * LiteLLM's `/user/info` for the scripts that read a person's spend: a person is a control-plane
 * user; what the gateway knows of them is the keys made for them (`user_id` on /key/generate) and
 * their budgets in projects (`/team/member_update`), in the projects the caller may see.
 */
@ApiTags('litellm user API')
@ApiBearerAuth()
@Controller('user')
export class LiteLlmUsersController {
  constructor(
    private readonly keys: KeysService,
    private readonly limits: BudgetLimits,
    private readonly budgets: Budgets,
  ) {}

  @Get('info')
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  async info(
    @PermittedProjects() permitted: Permitted,
    @Query() query: UserInfoQuery,
  ): Promise<{ user_id: string; user_info: LiteLlmUserInfo; keys: LiteLlmKey[]; teams: LiteLlmTeamMember[] }> {
    const userId = query.user_id;
    const keys = (await this.keys.list(permitted)).filter((row) => row.userId === userId);
    const teams: LiteLlmTeamMember[] = [];
    for (const row of await this.limits.list(PERSON)) {
      const colon = row.subject.indexOf(':');
      const project = row.subject.slice(0, colon);
      if (row.subject.slice(colon + 1) !== userId || (permitted !== 'all' && !permitted.includes(project))) continue;
      teams.push(liteLlmTeamMember(project, userId, row, await this.budgets.spentNow(PERSON, row.subject, row.budgetDuration)));
    }
    if (keys.length === 0 && teams.length === 0) {
      throw new ApiError(404, 'user_not_found', `No key or budget of user "${excerpt(userId)}" in the projects you may see.`);
    }
    const projects = [...new Set([...keys.map((row) => row.project), ...teams.map((team) => team.team_id)])].sort();
    return {
      user_id: userId,
      user_info: { user_id: userId, user_email: null, max_budget: null, spend: addUsd(0, ...keys.map((row) => row.spend)), models: [], teams: projects },
      keys: keys.map((row) => liteLlmKey(row)),
      teams,
    };
  }
}
