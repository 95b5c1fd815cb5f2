import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { GuardedRequest, PermittedProjects, RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { AI_GATEWAY, OPERATOR, READERS } from '../admin/admin-access';
import { CreateKeyDto } from '../keys/dto/create-key.dto';
import { PROJECT_SLUG } from '../keys/dto/key-fields';
import { UpdateKeyDto } from '../keys/dto/update-key.dto';
import { KeysService } from '../keys/keys.service';
import type { VirtualKey } from '../keys/virtual-key.entity';
import {
  DeleteKeysDto,
  GenerateKeyDto,
  KeyInfoQuery,
  KeyListQuery,
  KeyReferenceDto,
  LiteLlmKeyFieldsDto,
  RegenerateKeyDto,
  SpendLogsQuery,
  UNSERVED_KEY_FIELDS,
  UpdateLiteLlmKeyDto,
} from './litellm-key.dto';
import { CallRecords } from '../spend/call-records';
import { LiteLlmSpendLog } from '../spend/call-record.response';
import { SpendRecorder } from '../spend/spend-recorder';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { LiteLlmKey, liteLlmKey } from './litellm-key.response';
import { isDefault, refuseGiven, requirePermitted } from './litellm-fields';
import { DailySpend, LiteLlmSpendLogs } from './litellm-spend-logs';

type Permitted = 'all' | string[];

/**
 * LiteLLM's key API (`/key/generate`, `/key/info`, `/key/update`, `/key/delete`, `/key/block`,
 * `/key/unblock`, `/key/regenerate`, `/key/list`, `/spend/logs`) for the scripts teams already
 * have: a translation onto the keys of /api/v1/keys (KeysService), with the same authorisation
 * (the master key, or a person with ai-gateway.operator — to read, ai-gateway.viewer — on the
 * key's project). LiteLLM's team is the key's project: `team_id` names its slug (else
 * `metadata.project`). Fields without an equivalent are refused unless at LiteLLM's default.
 */
@ApiTags('litellm key API')
@ApiBearerAuth()
@Controller()
export class LiteLlmKeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly spendLogs: LiteLlmSpendLogs,
    private readonly recorder: SpendRecorder,
    private readonly callRecords: CallRecords,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.callRecordsOff = settings.litellm.spendLogs?.enabled === false;
  }

  private readonly callRecordsOff: boolean;

  @Post('key/generate')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async generate(@Req() request: GuardedRequest, @PermittedProjects() permitted: Permitted, @Body() body: GenerateKeyDto): Promise<LiteLlmKey> {
    refuseUnserved(body, true);
    const project = projectOf(body);
    if (project === undefined) {
      throw new ApiError(400, 'project_required', "Name the key's project: team_id (or metadata.project) is the slug of a control-plane project; keys belong to a project here.");
    }
    requirePermitted(permitted, project, 'ai-gateway.operator');
    // On a new key, null is absent.
    const settings = Object.fromEntries(Object.entries(settingsOf(body)).filter(([, value]) => value !== null));
    const created = { project, ...settings } as CreateKeyDto;
    const { row, key } = await this.keys.create(created, byOwnCredential(request));
    const saved = body.blocked === true ? await this.keys.setBlocked(row.id, true) : row;
    return liteLlmKey(saved, key);
  }

  @Get('key/info')
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  async info(@PermittedProjects() permitted: Permitted, @Query() query: KeyInfoQuery): Promise<{ key: string; info: LiteLlmKey }> {
    // This replica's last second of spend belongs in the key's spend; a failing flush keeps it for later.
    await this.recorder.flush().catch(() => undefined);
    const row = await this.named(query.key, permitted, 'ai-gateway.viewer or ai-gateway.operator');
    return { key: query.key, info: liteLlmKey(row) };
  }

  @Post('key/update')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async update(@Req() request: GuardedRequest, @PermittedProjects() permitted: Permitted, @Body() body: UpdateLiteLlmKeyDto): Promise<LiteLlmKey> {
    const row = await this.named(body.key, permitted, 'ai-gateway.operator');
    return { ...liteLlmKey(await this.apply(request, permitted, row, body)), key: body.key };
  }

  @Post('key/delete')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async delete(@PermittedProjects() permitted: Permitted, @Body() body: DeleteKeysDto): Promise<{ deleted_keys: string[] }> {
    const named = [...(body.keys ?? []), ...(body.key_aliases ?? [])];
    if (named.length === 0) throw new ApiError(400, 'invalid_request', 'Name the keys to delete: keys (the keys or their tokens) or key_aliases.');
    // Every key found and permitted before any is deleted: a refusal changes nothing.
    const rows: VirtualKey[] = [];
    for (const reference of body.keys ?? []) rows.push(await this.named(reference, permitted, 'ai-gateway.operator'));
    for (const alias of body.key_aliases ?? []) {
      const row = await this.keys.findByAlias(alias);
      if (!row) throw new ApiError(404, 'key_not_found', `No key has the key_alias "${excerpt(alias)}".`);
      requirePermitted(permitted, row.project, 'ai-gateway.operator');
      rows.push(row);
    }
    for (const row of new Map(rows.map((row) => [row.id, row])).values()) await this.keys.delete(row.id);
    return { deleted_keys: named };
  }

  @Post('key/block')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async block(@PermittedProjects() permitted: Permitted, @Body() body: KeyReferenceDto): Promise<LiteLlmKey> {
    const row = await this.named(body.key, permitted, 'ai-gateway.operator');
    return liteLlmKey(await this.keys.setBlocked(row.id, true));
  }

  @Post('key/unblock')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async unblock(@PermittedProjects() permitted: Permitted, @Body() body: KeyReferenceDto): Promise<LiteLlmKey> {
    const row = await this.named(body.key, permitted, 'ai-gateway.operator');
    return liteLlmKey(await this.keys.setBlocked(row.id, false));
  }

  @Post('key/regenerate')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async regenerate(@Req() request: GuardedRequest, @PermittedProjects() permitted: Permitted, @Body() body: RegenerateKeyDto): Promise<LiteLlmKey> {
    if (body.key === undefined) throw new ApiError(400, 'invalid_request', 'Name the key to regenerate: key (the key, its token or its id), or POST /key/{key}/regenerate.');
    return this.regenerated(request, permitted, body.key, body);
  }

  @Post('key/:key/regenerate')
  @HttpCode(200)
  @RequirePermission(AI_GATEWAY, OPERATOR, { project: 'any' })
  async regeneratePath(@Req() request: GuardedRequest, @PermittedProjects() permitted: Permitted, @Param('key') key: string, @Body() body: RegenerateKeyDto): Promise<LiteLlmKey> {
    return this.regenerated(request, permitted, key, body);
  }

  @Get('key/list')
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  async list(
    @PermittedProjects() permitted: Permitted,
    @Query() query: KeyListQuery,
  ): Promise<{ keys: (string | LiteLlmKey)[]; total_count: number; current_page: number; total_pages: number }> {
    refuseGiven(query, ['organization_id'], 'organizations are not served: keys belong to projects (filter with team_id)');
    const page = query.page ?? 1;
    const size = query.size ?? 10;
    if (query.team_id !== undefined) requirePermitted(permitted, query.team_id, 'ai-gateway.viewer or ai-gateway.operator');
    const projects = query.team_id !== undefined ? [query.team_id] : permitted;
    const { rows, total } = await this.keys.page(projects, {
      page,
      size,
      ...(query.key_alias !== undefined ? { keyAlias: query.key_alias } : {}),
      ...(query.key_hash !== undefined ? { keyHash: query.key_hash } : {}),
      ...(query.user_id !== undefined ? { userId: query.user_id } : {}),
      sortBy: query.sort_by ?? 'created_at',
      descending: (query.sort_order ?? 'desc') === 'desc',
    });
    return {
      keys: rows.map((row) => (query.return_full_object ? liteLlmKey(row) : row.keyHash)),
      total_count: total,
      current_page: page,
      total_pages: Math.ceil(total / size),
    };
  }

  /** LiteLLM's /spend/logs: daily totals with start_date and end_date (summarize, the default), else single calls, newest first, paged. */
  @Get('spend/logs')
  @ApiExtraModels(DailySpend, LiteLlmSpendLog)
  @ApiOkResponse({
    description: 'With start_date and end_date (and summarize not false): one entry per day of the range; otherwise single calls, newest first.',
    schema: {
      oneOf: [
        { type: 'array', items: { $ref: getSchemaPath(DailySpend) } },
        { type: 'array', items: { $ref: getSchemaPath(LiteLlmSpendLog) } },
      ],
    },
  })
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  async spendLogsOf(@PermittedProjects() permitted: Permitted, @Query() query: SpendLogsQuery): Promise<DailySpend[] | LiteLlmSpendLog[]> {
    const key = query.api_key === undefined ? undefined : await this.named(query.api_key, permitted, 'ai-gateway.viewer or ai-gateway.operator');
    if (query.team_id !== undefined) requirePermitted(permitted, query.team_id, 'ai-gateway.viewer or ai-gateway.operator');
    if (query.summarize !== false && query.start_date !== undefined && query.end_date !== undefined) {
      refuseGiven(query, ['user_id'], 'the daily totals are not kept per person: add summarize=false for the single calls of their keys');
      return this.spendLogs.daily(permitted, query.start_date, query.end_date, key);
    }
    if (this.callRecordsOff)
      throw new ApiError(400, 'not_served', 'Single calls are not kept on this gateway (general_settings.disable_spend_logs): give start_date and end_date for daily totals.');
    // This replica's last second of calls belongs in the answer.
    await this.recorder.flush().catch(() => undefined);
    const from = query.start_date === undefined ? undefined : dayStart(query.start_date, 'start_date');
    const to = query.end_date === undefined ? undefined : dayStart(query.end_date, 'end_date') + DAY_MS;
    return this.callRecords.page({
      projects: permitted,
      page: query.page ?? 1,
      pageSize: query.page_size ?? 50,
      ...(key ? { keyId: key.id } : {}),
      ...(query.request_id !== undefined ? { requestId: query.request_id } : {}),
      ...(query.team_id !== undefined ? { project: query.team_id } : {}),
      ...(query.end_user !== undefined ? { endUser: query.end_user } : {}),
      ...(query.user_id !== undefined ? { userId: query.user_id } : {}),
      ...(query.model !== undefined ? { alias: query.model } : {}),
      ...(query.tags !== undefined ? { tag: query.tags } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
    });
  }

  private async regenerated(request: GuardedRequest, permitted: Permitted, reference: string, body: RegenerateKeyDto): Promise<LiteLlmKey> {
    if (body.new_master_key !== undefined && body.new_master_key !== null) {
      throw new ApiError(400, 'not_served', 'The master key is AIGW_MASTER_KEY: change it in the environment (docs/operations.md), not through this API.');
    }
    if (body.new_key !== undefined && body.new_key !== null)
      throw new ApiError(400, 'not_served', 'new_key: this gateway makes its own keys (sk-arbor-…); a chosen key value cannot be kept.');
    const row = await this.named(reference, permitted, 'ai-gateway.operator');
    const changed = await this.apply(request, permitted, row, body);
    const { row: rotated, key } = await this.keys.rotate(changed.id);
    return liteLlmKey(rotated, key);
  }

  /** The changes LiteLLM's update fields ask for, through the admin API's own update. */
  private async apply(request: GuardedRequest, permitted: Permitted, row: VirtualKey, body: LiteLlmKeyFieldsDto): Promise<VirtualKey> {
    refuseUnserved(body, false);
    const project = body.team_id ?? undefined;
    if (project !== undefined) {
      checkSlug(project);
      requirePermitted(permitted, project, 'ai-gateway.operator');
    }
    const update: UpdateKeyDto = { ...(project !== undefined ? { project } : {}), ...settingsOf(body) } as UpdateKeyDto;
    let saved = Object.keys(update).length > 0 ? await this.keys.update(row.id, update, byOwnCredential(request)) : row;
    if (typeof body.blocked === 'boolean' && body.blocked !== saved.blocked) saved = await this.keys.setBlocked(row.id, body.blocked);
    return saved;
  }

  /** The key a script names, 404 when there is none, 403 when the caller may not act on its project. */
  private async named(reference: string, permitted: Permitted, role: string): Promise<VirtualKey> {
    const row = await this.keys.find(reference);
    // The key itself is never echoed in an error.
    if (!row) throw new ApiError(404, 'key_not_found', 'No such key.');
    requirePermitted(permitted, row.project, role);
    return row;
  }
}

/** LiteLLM's team is the project: team_id, else metadata.project. */
function projectOf(body: LiteLlmKeyFieldsDto): string | undefined {
  const named = body.team_id ?? (typeof body.metadata?.['project'] === 'string' ? body.metadata['project'] : undefined);
  if (named === undefined || named === null) return undefined;
  checkSlug(named);
  return named;
}

function checkSlug(project: string): void {
  if (!PROJECT_SLUG.test(project)) {
    throw new ApiError(400, 'invalid_request', `team_id must be a project slug (1 to 64 lower-case letters, digits and hyphens), got "${excerpt(project)}".`, {
      fields: { team_id: ['must be a project slug'] },
    });
  }
}

/** What LiteLLM's fields set on a key, in the admin API's terms (absent: unchanged; null: cleared). */
function settingsOf(body: LiteLlmKeyFieldsDto): Partial<UpdateKeyDto> {
  const settings: Partial<UpdateKeyDto> = {};
  if (body.models !== undefined) settings.aliases = (body.models ?? []).filter((model) => model !== 'all-proxy-models' && model !== 'all-team-models');
  if (body.guardrails !== undefined) settings.guardrails = body.guardrails ?? [];
  if (body.duration !== undefined) settings.expires_at = body.duration === null ? null : expiryAfter(body.duration);
  if (body.max_budget !== undefined) settings.max_budget = body.max_budget;
  if (body.budget_duration !== undefined) settings.budget_duration = body.budget_duration;
  if (body.rpm_limit !== undefined) settings.rpm_limit = body.rpm_limit;
  if (body.tpm_limit !== undefined) settings.tpm_limit = body.tpm_limit;
  if (body.max_parallel_requests !== undefined) settings.max_parallel_requests = body.max_parallel_requests;
  if (body.model_max_budget !== undefined) settings.model_max_budget = body.model_max_budget;
  if (body.soft_budget !== undefined) settings.soft_budget = body.soft_budget;
  if (body.user_id !== undefined) settings.user_id = body.user_id;
  if (body.model_rpm_limit !== undefined) settings.model_rpm_limit = body.model_rpm_limit;
  if (body.model_tpm_limit !== undefined) settings.model_tpm_limit = body.model_tpm_limit;
  if (body.metadata !== undefined) settings.metadata = body.metadata ?? {};
  if (body.key_alias !== undefined) settings.key_alias = body.key_alias;
  return settings;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, mo: 30 * 86_400_000, y: 365 * 86_400_000 };

// Expiries past the year 9999 are not dates a database or a script reads back.
const LATEST_EXPIRY = Date.UTC(9999, 11, 31);

/** The expiry `duration` from now; 400 for one past the year 9999. */
function expiryAfter(duration: string): string {
  const [, amount, unit] = /^(\d+)(s|m|h|d|w|mo|y)$/.exec(duration) ?? [];
  const at = Date.now() + Number(amount) * (UNIT_MS[unit ?? 's'] ?? 1_000);
  if (!(at <= LATEST_EXPIRY)) throw new ApiError(400, 'invalid_request', 'duration ends after the year 9999.', { fields: { duration: ['must end before the year 10000'] } });
  return new Date(at).toISOString();
}

/** LiteLLM's fields without an equivalent here, refused unless at LiteLLM's default. */
function refuseUnserved(body: object, generating: boolean): void {
  const fields: Record<string, string[]> = {};
  for (const [name, reason] of Object.entries(UNSERVED_KEY_FIELDS)) {
    if (name === 'key' && !generating) continue;
    const value = (body as Record<string, unknown>)[name];
    if (!isDefault(value)) fields[name] = [reason];
  }
  const names = Object.keys(fields);
  if (names.length === 0) return;
  throw new ApiError(
    400,
    'unsupported_field',
    `${names.join(', ')}: ${names.map((name) => fields[name]?.[0]).join('; ')}. Ignoring ${names.length === 1 ? 'it' : 'them'} would weaken the key's limits or accounting, so the request is refused.`,
    { fields },
  );
}

/** The master key (the gateway's own credential) rather than a person: the guard left no caller. */
function byOwnCredential(request: GuardedRequest): boolean {
  return request.controlPlaneCaller === undefined;
}

const DAY_MS = 86_400_000;

/** A calendar day (YYYY-MM-DD, checked by the DTO) as its UTC midnight; 400 for one that does not exist (2026-02-30). */
function dayStart(text: string, field: string): number {
  const at = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text)
    throw new ApiError(400, 'invalid_request', `${field} is not a date.`, { fields: { [field]: ['must be a date: YYYY-MM-DD'] } });
  return at;
}
