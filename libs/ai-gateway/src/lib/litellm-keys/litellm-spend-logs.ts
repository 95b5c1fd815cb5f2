import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '@arbor/platform';
import type { VirtualKey } from '../keys/virtual-key.entity';
import { SpendRecorder } from '../spend/spend-recorder';
import { addUsd } from '../pricing/usd';

/**
 * One day of LiteLLM's summarised `/spend/logs`: its total, by model (the alias called), by user
 * (none here), and by key token (LiteLLM puts each key's hashed token beside the totals).
 */
export class DailySpend {
  @ApiProperty({ format: 'date-time', example: '2026-11-01T00:00:00.000Z' })
  startTime!: string;

  @ApiProperty({ description: "The day's spend in USD." })
  spend!: number;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'USD by the alias called.' })
  models!: Record<string, number>;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'USD by user: none here.' })
  users!: Record<string, number>;

  /** USD by each key's token (SHA-256), beside the totals as LiteLLM puts them. */
  [token: string]: unknown;
}

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

const DAILY = `
  select s.day::text as day, s.alias, k.key_hash, sum(s.cost_usd) as spend
    from spend_daily s left join virtual_keys k on k.id = s.key_id
   where s.day >= $1::date and s.day <= $2::date
     and ($3::text[] is null or s.project = any($3::text[]))
     and ($4::uuid is null or s.key_id = $4::uuid)
   group by s.day, s.alias, k.key_hash`;

/** LiteLLM's `/spend/logs?start_date=&end_date=` (its summarised form) from spend_daily: every day of the range, both ends included. */
@Injectable()
export class LiteLlmSpendLogs {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly recorder: SpendRecorder,
  ) {}

  async daily(projects: 'all' | string[], start: string, end: string, key?: VirtualKey): Promise<DailySpend[]> {
    const from = day(start, 'start_date');
    const to = day(end, 'end_date');
    if (to < from) throw new ApiError(400, 'invalid_request', 'end_date is before start_date.', { fields: { end_date: ['must not be before start_date'] } });
    if ((to - from) / DAY_MS + 1 > MAX_DAYS)
      throw new ApiError(400, 'invalid_request', `Ask for at most ${MAX_DAYS} days at a time.`, { fields: { end_date: [`at most ${MAX_DAYS} days after start_date`] } });
    // This replica's last second of spend belongs in the answer.
    await this.recorder.flush().catch(() => undefined);
    const rows: { day: string; alias: string; key_hash: string | null; spend: string }[] = await this.dataSource.query(DAILY, [
      start,
      end,
      projects === 'all' ? null : projects,
      key?.id ?? null,
    ]);
    const days = new Map<string, DailySpend>();
    for (let at = from; at <= to; at += DAY_MS) {
      const name = new Date(at).toISOString().slice(0, 10);
      days.set(name, { startTime: name, spend: 0, models: {}, users: {} });
    }
    for (const row of rows) {
      const entry = days.get(row.day);
      if (!entry) continue;
      // Added exactly: floats would answer 0.0012932500000000001.
      entry.spend = addUsd(entry.spend, row.spend);
      entry.models[row.alias] = addUsd(entry.models[row.alias] ?? 0, row.spend);
      if (row.key_hash) entry[row.key_hash] = addUsd((entry[row.key_hash] as number | undefined) ?? 0, row.spend);
    }
    return [...days.values()];
  }
}

/** A calendar day (YYYY-MM-DD, checked by the DTO) as its UTC midnight; 400 for one that does not exist (2026-02-30). */
function day(text: string, field: string): number {
  const at = Date.parse(`${text}T00:00:00Z`);
  // PostgreSQL has no year 0; nothing was spent before 1970.
  if (Number.isNaN(at) || at < 0 || new Date(at).toISOString().slice(0, 10) !== text)
    throw new ApiError(400, 'invalid_request', `${field} is not a date.`, { fields: { [field]: ['must be a date: YYYY-MM-DD'] } });
  return at;
}
