import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { AI_GATEWAY, OPERATOR, READERS } from '../admin/admin-access';
import type { BudgetLimit } from '../budgets/budget-limit.entity';
import { BudgetLimits, type LimitChange } from '../budgets/budget-limits';
import { Budgets, TAG_DAILY } from '../budgets/budgets';
import { refuseGiven } from '../litellm-keys/litellm-fields';
import { usdNumber, usdUnits } from '../pricing/usd';
import { SpendRecorder } from '../spend/spend-recorder';
import { SpendTagsQuery, TagDto, TagNameDto, TagNamesDto, UNSERVED_TAG_FIELDS } from './litellm-tag.dto';

const TAG = 'tag';
const UNSERVED_REASON = "a tag's models, shared budgets, rate limits and soft budgets are not served; set max_budget and budget_duration";

/** A tag as LiteLLM's /tag/* shows one. */
export interface LiteLlmTag {
  name: string;
  description: string | null;
  /** USD the calls carrying the tag spent in the current budget period since its budget was set. */
  spend: number;
  max_budget: number | null;
  budget_duration: string | null;
  litellm_budget_table: { max_budget: number | null; budget_duration: string | null } | null;
  created_at: string;
  updated_at: string;
}

/** One line of LiteLLM's /spend/tags. */
export interface TagSpend {
  individual_request_tag: string;
  log_count: number;
  total_spend: number;
}

const SPEND_BY_TAG = `
  select subject as tag, sum(calls)::text as calls, sum(spend)::text as spend
    from budget_spend
   where level = $1
     and ($2::date is null or period_end > ($2::date)::timestamp at time zone 'UTC')
     and ($3::date is null or period_end <= ($3::date + 1)::timestamp at time zone 'UTC')
   group by subject`;

/**
 * LiteLLM's tags: `/tag/new`, `/tag/info`, `/tag/list`, `/tag/update`, `/tag/delete` set budgets
 * for the calls that carry a tag (`metadata.tags`, or x-arbor-tags), which budgets/Budgets
 * enforces; `/spend/tags` reports every tag's calls and spend by UTC day, budget or not. Tags span
 * the workspace: the master key or ai-gateway.operator on the workspace (to read, ai-gateway.viewer).
 */
@ApiTags('litellm tag API')
@ApiBearerAuth()
@Controller()
export class LiteLlmTagsController {
  constructor(
    private readonly limits: BudgetLimits,
    private readonly budgets: Budgets,
    private readonly recorder: SpendRecorder,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  @Post('tag/new')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR)
  async create(@Body() body: TagDto): Promise<LiteLlmTag> {
    refuseGiven(body, UNSERVED_TAG_FIELDS, UNSERVED_REASON);
    if (await this.limits.find(TAG, body.name)) throw new ApiError(400, 'tag_exists', `The tag "${excerpt(body.name)}" exists already; change it with /tag/update.`);
    return this.shown(await this.limits.save(TAG, body.name, changeOf(body)));
  }

  @Post('tag/update')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR)
  async update(@Body() body: TagDto): Promise<LiteLlmTag> {
    refuseGiven(body, UNSERVED_TAG_FIELDS, UNSERVED_REASON);
    const row = await this.existing(body.name);
    return this.shown(await this.limits.save(TAG, body.name, changeOf(body, row)));
  }

  @Post('tag/info')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, READERS)
  async info(@Body() body: TagNamesDto): Promise<Record<string, LiteLlmTag>> {
    const shown: Record<string, LiteLlmTag> = {};
    for (const name of body.names) shown[name] = await this.shown(await this.existing(name));
    return shown;
  }

  @Get('tag/list')
  @RequirePermission(AI_GATEWAY, READERS)
  async list(): Promise<LiteLlmTag[]> {
    return Promise.all((await this.limits.list(TAG)).map((row) => this.shown(row)));
  }

  @Post('tag/delete')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR)
  async delete(@Body() body: TagNameDto): Promise<{ deleted: string }> {
    await this.existing(body.name);
    await this.limits.delete(TAG, body.name);
    return { deleted: body.name };
  }

  @Get('spend/tags')
  @RequirePermission(AI_GATEWAY, READERS)
  async spendByTag(@Query() query: SpendTagsQuery): Promise<TagSpend[]> {
    if (query.start_date !== undefined && query.end_date !== undefined && query.end_date < query.start_date) {
      throw new ApiError(400, 'invalid_request', 'end_date is before start_date.', { fields: { end_date: ['must not be before start_date'] } });
    }
    // This replica's last second of spend belongs in the answer.
    await this.recorder.flush().catch(() => undefined);
    const rows: { tag: string; calls: string; spend: string }[] = await this.dataSource.query(SPEND_BY_TAG, [TAG_DAILY, query.start_date ?? null, query.end_date ?? null]);
    return rows
      .map((row) => ({ individual_request_tag: row.tag, log_count: Number(row.calls), total_spend: usdNumber(usdUnits(row.spend)) }))
      .sort((a, b) => b.total_spend - a.total_spend || (a.individual_request_tag < b.individual_request_tag ? -1 : 1));
  }

  private async existing(name: string): Promise<BudgetLimit> {
    const row = await this.limits.find(TAG, name);
    if (!row) throw new ApiError(404, 'tag_not_found', `No tag "${excerpt(name)}": create it with /tag/new.`);
    return row;
  }

  private async shown(row: BudgetLimit): Promise<LiteLlmTag> {
    const { spend } = await this.budgets.spentNow(TAG, row.subject, row.budgetDuration);
    const description = typeof row.metadata['description'] === 'string' ? row.metadata['description'] : null;
    return {
      name: row.subject,
      description,
      spend,
      max_budget: row.maxBudget,
      budget_duration: row.budgetDuration,
      litellm_budget_table: row.maxBudget === null && row.budgetDuration === null ? null : { max_budget: row.maxBudget, budget_duration: row.budgetDuration },
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }
}

function changeOf(body: TagDto, row?: BudgetLimit): LimitChange {
  const change: LimitChange = {};
  if (body.max_budget !== undefined) change.maxBudget = body.max_budget;
  if (body.budget_duration !== undefined) change.budgetDuration = body.budget_duration;
  if (body.description !== undefined) change.metadata = { ...(row?.metadata ?? {}), description: body.description };
  return change;
}
