import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { AI_GATEWAY, OPERATOR, READERS } from '../admin/admin-access';
import type { BudgetLimit } from '../budgets/budget-limit.entity';
import { BudgetLimits, type LimitChange } from '../budgets/budget-limits';
import { Budgets } from '../budgets/budgets';
import { refuseGiven } from '../litellm-keys/litellm-fields';
import { CustomerDto, CustomerFieldsDto, CustomerIdsDto, CustomerInfoQuery, UNSERVED_CUSTOMER_FIELDS } from './litellm-customer.dto';
import { LiteLlmCustomer, liteLlmCustomer } from './litellm-customer.response';

const END_USER = 'end-user';
const UNSERVED_REASON = 'regions, default models, shared budgets and rate limits of customers are not served; set max_budget and budget_duration';

/**
 * LiteLLM's customer API (`/customer/new`, `/info`, `/update`, `/delete`, `/block`, `/unblock`,
 * `/list`): the caller's own customers (end users, `user` of a call or x-arbor-end-user), their
 * budgets and blocks, which budgets/Budgets enforces on every call naming them. End users span the
 * workspace, so managing them takes the master key or ai-gateway.operator on the workspace (to
 * read, ai-gateway.viewer).
 */
@ApiTags('litellm customer API')
@ApiBearerAuth()
@Controller('customer')
export class LiteLlmCustomersController {
  constructor(
    private readonly limits: BudgetLimits,
    private readonly budgets: Budgets,
  ) {}

  @Post('new')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR)
  async create(@Body() body: CustomerDto): Promise<LiteLlmCustomer> {
    refuseGiven(body, UNSERVED_CUSTOMER_FIELDS, UNSERVED_REASON);
    if (await this.limits.find(END_USER, body.user_id)) {
      throw new ApiError(400, 'customer_exists', `The customer "${excerpt(body.user_id)}" exists already; change it with /customer/update.`);
    }
    return this.shown(await this.limits.save(END_USER, body.user_id, changeOf(body)));
  }

  @Get('info')
  @RequirePermission(AI_GATEWAY, READERS)
  async info(@Query() query: CustomerInfoQuery): Promise<LiteLlmCustomer> {
    return this.shown(await this.existing(query.end_user_id));
  }

  @Get('list')
  @RequirePermission(AI_GATEWAY, READERS)
  async list(): Promise<LiteLlmCustomer[]> {
    return Promise.all((await this.limits.list(END_USER)).map((row) => this.shown(row)));
  }

  @Post('update')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR)
  async update(@Body() body: CustomerDto): Promise<LiteLlmCustomer> {
    refuseGiven(body, UNSERVED_CUSTOMER_FIELDS, UNSERVED_REASON);
    await this.existing(body.user_id);
    return this.shown(await this.limits.save(END_USER, body.user_id, changeOf(body)));
  }

  @Post('delete')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR)
  async delete(@Body() body: CustomerIdsDto): Promise<{ deleted_customers: string[] }> {
    // Every customer found before any is deleted: a refusal changes nothing.
    for (const id of body.user_ids) await this.existing(id);
    for (const id of body.user_ids) await this.limits.delete(END_USER, id);
    return { deleted_customers: body.user_ids };
  }

  /** LiteLLM blocks ids it has not seen too: they are created blocked. */
  @Post('block')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR)
  async block(@Body() body: CustomerIdsDto): Promise<{ blocked_users: LiteLlmCustomer[] }> {
    const rows: BudgetLimit[] = [];
    for (const id of body.user_ids) rows.push(await this.limits.save(END_USER, id, { blocked: true }));
    return { blocked_users: await Promise.all(rows.map((row) => this.shown(row))) };
  }

  @Post('unblock')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR)
  async unblock(@Body() body: CustomerIdsDto): Promise<{ unblocked_users: LiteLlmCustomer[] }> {
    for (const id of body.user_ids) await this.existing(id);
    const rows: BudgetLimit[] = [];
    for (const id of body.user_ids) rows.push(await this.limits.save(END_USER, id, { blocked: false }));
    return { unblocked_users: await Promise.all(rows.map((row) => this.shown(row))) };
  }

  private async existing(id: string): Promise<BudgetLimit> {
    const row = await this.limits.find(END_USER, id);
    if (!row) throw new ApiError(404, 'customer_not_found', `No customer "${excerpt(id)}": create it with /customer/new.`);
    return row;
  }

  private async shown(row: BudgetLimit): Promise<LiteLlmCustomer> {
    return liteLlmCustomer(row, (await this.budgets.spentNow(END_USER, row.subject, row.budgetDuration)).spend);
  }
}

/** The fields the body sets (absent: unchanged; null clears). */
function changeOf(body: CustomerFieldsDto): LimitChange {
  const change: LimitChange = {};
  if (body.alias !== undefined) change.alias = body.alias;
  if (body.blocked !== undefined) change.blocked = body.blocked;
  if (body.max_budget !== undefined) change.maxBudget = body.max_budget;
  if (body.budget_duration !== undefined) change.budgetDuration = body.budget_duration;
  if (body.metadata !== undefined) change.metadata = body.metadata ?? {};
  return change;
}
