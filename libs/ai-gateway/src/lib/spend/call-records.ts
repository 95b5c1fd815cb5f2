import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { errorFields } from '@arbor/observability';
import { DataSource } from 'typeorm';
import { DEFAULT_SPEND_LOGS_RETENTION_MS } from '../config/litellm-settings';
import { GatewayClock } from '../gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { usdNumber, usdUnits } from '../pricing/usd';
import type { CallRecordContent, LiteLlmSpendLog } from './call-record.response';

/** Filters of a page of single calls; each absent one matches every call. */
export interface CallRecordFilter {
  /** 'all', or the projects whose calls may be listed. */
  projects: 'all' | readonly string[];
  keyId?: string;
  requestId?: string;
  project?: string;
  endUser?: string;
  /** The person whose keys made the calls (the key's user_id). */
  userId?: string;
  alias?: string;
  tag?: string;
  /** [from, to) in epoch milliseconds. */
  from?: number;
  to?: number;
  page: number;
  pageSize: number;
}

export type { LiteLlmSpendLog };

const PAGE = `
  select r.id::text as id, r.started_at, r.latency_ms, k.key_hash, k.key_alias, k.user_id, r.project, r.end_user, r.tags, r.alias, r.deployment_id, r.provider,
         r.prompt_tokens::text as prompt_tokens, r.completion_tokens::text as completion_tokens, r.cost_usd::text as cost_usd, r.status, r.cache_hit, r.error_code, r.retries, r.fallbacks, r.content
    from call_records r left join virtual_keys k on k.id = r.key_id
   where ($1::text[] is null or r.project = any($1::text[]))
     and ($2::uuid is null or r.key_id = $2::uuid)
     and ($3::text is null or r.id::text = $3::text)
     and ($4::text is null or r.project = $4::text)
     and ($5::text is null or r.end_user = $5::text)
     and ($6::text is null or r.alias = $6::text)
     and ($7::text is null or $7::text = any(r.tags))
     and ($8::timestamptz is null or r.started_at >= $8::timestamptz)
     and ($9::timestamptz is null or r.started_at < $9::timestamptz)
     and ($12::text is null or k.user_id = $12::text)
   order by r.started_at desc, r.id
   limit $10 offset $11`;

// Old rows go a batch at a time, so that pruning never holds many locks or one long transaction.
const PRUNE_BATCH = 5_000;
const PRUNE = `
  delete from call_records where id in (select id from call_records where started_at < $1 order by started_at limit ${PRUNE_BATCH} for update skip locked)`;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * The records of single calls (call_records, appended by SpendRecorder's flush): paged for
 * /spend/logs, newest first, and pruned past the retention (general_settings.
 * maximum_spend_logs_retention_period, 30 days by default) every hour, in batches.
 */
@Injectable()
export class CallRecords implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ai-gateway-spend');
  private readonly retentionMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: GatewayClock,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.retentionMs = settings.litellm.spendLogs?.retentionMs ?? DEFAULT_SPEND_LOGS_RETENTION_MS;
  }

  onApplicationBootstrap(): void {
    const run = () =>
      void this.prune().catch((error: unknown) => this.logger.warn('old call records could not be pruned; tried again within the hour', { err: errorFields(error) }));
    this.timer = setInterval(run, PRUNE_EVERY_MS);
    this.timer.unref();
    run();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Deletes the records older than the retention, a batch at a time; the number deleted. */
  async prune(): Promise<number> {
    const before = new Date(this.clock.now() - this.retentionMs).toISOString();
    let deleted = 0;
    for (;;) {
      const [, count] = (await this.dataSource.query(PRUNE, [before])) as [unknown, number];
      deleted += count;
      if (count < PRUNE_BATCH) return deleted;
    }
  }

  async page(filter: CallRecordFilter): Promise<LiteLlmSpendLog[]> {
    const rows: Row[] = await this.dataSource.query(PAGE, [
      filter.projects === 'all' ? null : filter.projects,
      filter.keyId ?? null,
      filter.requestId ?? null,
      filter.project ?? null,
      filter.endUser ?? null,
      filter.alias ?? null,
      filter.tag ?? null,
      filter.from === undefined ? null : new Date(filter.from).toISOString(),
      filter.to === undefined ? null : new Date(filter.to).toISOString(),
      filter.pageSize,
      (filter.page - 1) * filter.pageSize,
      filter.userId ?? null,
    ]);
    return rows.map((row) => {
      const prompt = Number(row.prompt_tokens);
      const completion = Number(row.completion_tokens);
      const started = new Date(row.started_at);
      return {
        request_id: row.id,
        api_key: row.key_hash,
        team_id: row.project,
        end_user: row.end_user,
        user: row.user_id,
        request_tags: row.tags,
        model: row.alias,
        model_group: row.alias,
        model_id: row.deployment_id,
        custom_llm_provider: row.provider,
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        spend: usdNumber(usdUnits(row.cost_usd)),
        status: row.status < 400 ? 'success' : 'failure',
        startTime: started.toISOString(),
        endTime: new Date(started.getTime() + row.latency_ms).toISOString(),
        request_duration_ms: Math.round(row.latency_ms),
        cache_hit: row.cache_hit ? 'True' : 'False',
        metadata: { key_alias: row.key_alias, status_code: row.status, error_code: row.error_code, retries: row.retries, fallbacks: row.fallbacks },
        ...(row.content ? { content: row.content } : {}),
      };
    });
  }
}

interface Row {
  id: string;
  started_at: Date;
  latency_ms: number;
  key_hash: string | null;
  key_alias: string | null;
  user_id: string | null;
  project: string | null;
  end_user: string | null;
  tags: string[];
  alias: string;
  deployment_id: string | null;
  provider: string | null;
  prompt_tokens: string;
  completion_tokens: string;
  cost_usd: string;
  status: number;
  cache_hit: boolean;
  error_code: string | null;
  retries: number;
  fallbacks: number;
  /** As the call-content stage kept it (call_records.content), or null. */
  content: CallRecordContent | null;
}
