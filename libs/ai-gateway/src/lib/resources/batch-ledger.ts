import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { StringDecoder } from 'node:string_decoder';
import { DataSource } from 'typeorm';
import { errorFields } from '@arbor/observability';
import { openAiErrorFrom } from '@arbor/provider-adapters';
import { GatewayClock } from '../gateway-clock';
import { VirtualKey } from '../keys/virtual-key.entity';
import { budgetPeriodEnd } from '../limits/budget-period';
import { ModelPrices } from '../pricing/model-prices';
import { SpendRecorder } from '../spend/spend-recorder';
import { NO_USAGE, usageFrom, type CallUsage } from '../calls/usage';
import { usageOfResponses } from '../endpoints/openai-responses/responses-usage';
import type { OwnedResource } from './owned-resource.entity';
import { ResourceStore } from './resource-store';
import { ResourceUpstream } from './resource-upstream';

/** A batch's statuses after which it changes no more. */
const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);
// Running batches are looked at this often by one replica (a row claim), in groups of this many.
const POLL_EVERY_MS = 60_000;
const POLL_GROUP = 20;
// A replica that starts looks soon: batches that fell due while none ran are not left a minute longer.
const FIRST_POLL_MS = 1_000;

/** What a batch's output file says it cost. */
interface BatchSettlement {
  usage: CallUsage;
  requests: number;
  costUsd: number;
}

/**
 * Batches' state as the client sees it, and their cost: an upstream batch object gets the
 * gateway's file ids; a batch seen ended (on retrieve, or by the background poller, whichever
 * replica first) has its output file read line by line, its usage summed and priced at the
 * model's batch price, and its cost and spend recorded once.
 */
@Injectable()
export class BatchLedger implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ai-gateway');
  private polling: NodeJS.Timeout | undefined;
  private firstPoll: NodeJS.Timeout | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ResourceStore,
    private readonly upstream: ResourceUpstream,
    private readonly prices: ModelPrices,
    private readonly spend: SpendRecorder,
    private readonly clock: GatewayClock,
  ) {}

  onModuleInit(): void {
    this.firstPoll = setTimeout(() => void this.poll(), FIRST_POLL_MS).unref();
    this.polling = setInterval(() => void this.poll(), POLL_EVERY_MS).unref();
  }

  onModuleDestroy(): void {
    clearTimeout(this.firstPoll);
    clearInterval(this.polling);
  }

  /** The batch as the client sees it (gateway ids), kept for lists; settled when it has ended. */
  async observe(batch: OwnedResource, upstreamObject: Record<string, unknown>): Promise<Record<string, unknown>> {
    const fileIds = ['input_file_id', 'output_file_id', 'error_file_id']
      .map((field) => upstreamObject[field])
      .filter((value): value is string => typeof value === 'string' && value !== '');
    const known = await this.store.clientFileIds(batch, fileIds);
    const seen: Record<string, unknown> = { ...upstreamObject, id: batch.id };
    for (const field of ['input_file_id', 'output_file_id', 'error_file_id']) {
      const value = upstreamObject[field];
      if (typeof value === 'string' && known.has(value)) seen[field] = known.get(value);
    }
    const ended = ENDED.has(String(upstreamObject['status']));
    await this.store.setObject(batch.id, seen, ended ? null : new Date(this.clock.now() + POLL_EVERY_MS));
    if (ended && batch.settledAt === null) await this.settle(batch, upstreamObject);
    return seen;
  }

  /** Reads the output, prices it and records the spend, once across replicas. */
  private async settle(batch: OwnedResource, upstreamObject: Record<string, unknown>): Promise<void> {
    const output = upstreamObject['output_file_id'];
    const settled = await this.store.settleOnce(batch.id, async (): Promise<BatchSettlement> => {
      const deployment = this.upstream.deployment(batch.deploymentId);
      const { usage, requests } = typeof output === 'string' && output !== '' ? await this.usageOfOutput(batch, output) : { usage: NO_USAGE, requests: 0 };
      return { usage, requests, costUsd: this.prices.batchCost(deployment, usage) };
    });
    if (!settled) return;
    const deployment = this.upstream.deployment(batch.deploymentId);
    const key = batch.keyId ? await this.dataSource.getRepository(VirtualKey).findOneBy({ id: batch.keyId }) : null;
    this.spend.record({
      keyId: batch.keyId,
      project: batch.project,
      projectId: key?.projectId ?? null,
      alias: batch.alias,
      deploymentId: deployment.id,
      provider: deployment.provider,
      promptTokens: settled.usage.promptTokens,
      completionTokens: settled.usage.completionTokens,
      costUsd: settled.costUsd,
    });
    if (key) {
      const periodEnd = budgetPeriodEnd(
        { budgetDuration: key.budgetDuration, budgetResetAt: key.budgetResetAt?.getTime() ?? null, createdAt: key.createdAt.getTime() },
        this.clock.now(),
      );
      this.spend.recordKeySpend(key.id, settled.costUsd, periodEnd);
    }
  }

  /** The usage of every line of a batch's output file, summed, read as it streams. */
  private async usageOfOutput(batch: OwnedResource, outputFileId: string): Promise<{ usage: CallUsage; requests: number }> {
    const deployment = this.upstream.deployment(batch.deploymentId);
    const answer = await this.upstream.send(deployment, { method: 'GET', path: `/files/${encodeURIComponent(outputFileId)}/content` });
    if (answer.statusCode >= 300) throw await openAiErrorFrom(answer);
    const total: CallUsage = { ...NO_USAGE };
    let requests = 0;
    const decoder = new StringDecoder('utf8');
    let pending = '';
    const add = (line: string) => {
      if (line.trim() === '') return;
      try {
        const body = (JSON.parse(line) as { response?: { body?: { usage?: unknown } } }).response?.body;
        const usage = usageFrom(body?.usage) ?? usageOfResponses(body?.usage);
        if (!usage) return;
        requests += 1;
        total.promptTokens += usage.promptTokens;
        total.completionTokens += usage.completionTokens;
        total.cachedTokens += usage.cachedTokens;
        total.reasoningTokens += usage.reasoningTokens;
      } catch {
        // A line that is not JSON costs nothing we can know.
      }
    };
    for await (const chunk of answer.body) {
      pending += decoder.write(chunk as Buffer);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(add);
    }
    add(pending);
    return { usage: total, requests };
  }

  /** Running batches due for a look: claimed (FOR UPDATE SKIP LOCKED, so one replica each), retrieved, settled when ended. */
  private async poll(): Promise<void> {
    let due: OwnedResource[];
    try {
      due = await this.store.claimDueBatches(POLL_GROUP, POLL_EVERY_MS);
    } catch (error) {
      return this.logger.warn('running batches could not be polled', { err: errorFields(error) });
    }
    for (const batch of due) {
      try {
        const deployment = this.upstream.deployment(batch.deploymentId);
        const object = await this.upstream.json(deployment, { method: 'GET', path: `/batches/${encodeURIComponent(batch.upstreamId)}` });
        await this.observe(batch, object);
      } catch (error) {
        this.logger.warn('a running batch could not be polled; tried again later', { batch: batch.id, err: errorFields(error) });
      }
    }
  }
}
