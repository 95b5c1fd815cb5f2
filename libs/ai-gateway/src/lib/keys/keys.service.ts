import { Inject, Injectable } from '@nestjs/common';
import { ApiError, excerpt, excerptList } from '@arbor/platform';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { CreateKeyDto } from './dto/create-key.dto';
import { modelBudgets } from './dto/key-fields';
import { UpdateKeyDto } from './dto/update-key.dto';
import { VIRTUAL_KEYS } from './key-material';
import { KeyChangeBus } from '../limits/key-change-bus';
import { KeyNotFound } from './keys.exception';
import { VirtualKey } from './virtual-key.entity';
import { ControlPlaneProjects } from '../projects/control-plane-projects';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';

// LiteLLM's sort fields by the entity's columns.
const SORT_COLUMNS: Record<string, keyof VirtualKey> = { created_at: 'createdAt', updated_at: 'updatedAt', spend: 'spend', key_alias: 'keyAlias', expires: 'expiresAt' };

/** The admin side of virtual keys. Every change evicts the key from the caches of every replica. */
@Injectable()
export class KeysService {
  private readonly keys: Repository<VirtualKey>;

  private readonly guardrails: ReadonlySet<string>;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly changes: KeyChangeBus,
    private readonly projects: ControlPlaneProjects,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.keys = dataSource.getRepository(VirtualKey);
    this.guardrails = new Set((settings.litellm.guardrails ?? []).map((guardrail) => guardrail.name));
  }

  /** The new row and the key, which exists nowhere else afterwards. `masterKey`: the control plane being down does not stop the master key (the project is matched at its next sync). */
  async create(body: CreateKeyDto, masterKey = false): Promise<{ row: VirtualKey; key: string }> {
    // With a control plane, the project must exist there (404 project_not_found); its id is kept beside the slug.
    const project = await this.projects.require(body.project, masterKey);
    if (body.repository !== undefined) await this.projects.requireRepository(project, body.project, body.repository);
    if (typeof body.user_id === 'string') await this.projects.requireMember(body.project, body.user_id, masterKey);
    // key_alias null is no name, as LiteLLM's /key/generate reads it (Optional[str] = None).
    if (typeof body.key_alias === 'string') await this.requireFreeAlias(body.key_alias);
    this.requireGuardrails(body.guardrails);
    const key = VIRTUAL_KEYS.generate();
    const row = await this.keys.save(
      this.keys.create({
        keyHash: VIRTUAL_KEYS.hash(key),
        keyHint: VIRTUAL_KEYS.hint(key),
        project: body.project,
        projectId: project?.id ?? null,
        repository: body.repository ?? null,
        keyAlias: body.key_alias ?? null,
        aliases: body.aliases ?? [],
        guardrails: body.guardrails ?? [],
        expiresAt: body.expires_at ? new Date(body.expires_at) : null,
        blocked: false,
        metadata: body.metadata ?? {},
        maxBudget: body.max_budget ?? null,
        budgetDuration: body.budget_duration ?? null,
        rpmLimit: body.rpm_limit ?? null,
        tpmLimit: body.tpm_limit ?? null,
        maxParallelRequests: body.max_parallel_requests ?? null,
        softBudget: body.soft_budget ?? null,
        userId: body.user_id ?? null,
        modelRpmLimit: body.model_rpm_limit ?? {},
        modelTpmLimit: body.model_tpm_limit ?? {},
        modelMaxBudget: modelBudgets(body.model_max_budget ?? {}) ?? {},
      }),
    );
    return { row, key };
  }

  /** Keys of the given projects (every key when `projects` is 'all'). */
  list(projects: 'all' | string[]): Promise<VirtualKey[]> {
    return this.keys.find({ where: projects === 'all' ? {} : { project: In(projects) }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async get(id: string): Promise<VirtualKey> {
    const row = await this.keys.findOneBy({ id });
    if (!row) throw new KeyNotFound(id);
    return row;
  }

  async update(id: string, body: UpdateKeyDto, masterKey = false): Promise<VirtualKey> {
    const project = body.project === undefined ? undefined : await this.projects.require(body.project, masterKey);
    if (typeof body.key_alias === 'string') await this.requireFreeAlias(body.key_alias, id);
    this.requireGuardrails(body.guardrails);
    if (typeof body.user_id === 'string') await this.projects.requireMember(body.project ?? (await this.get(id)).project, body.user_id, masterKey);
    return this.change(id, (row) => {
      if (body.project !== undefined) {
        if (row.repository !== null && body.project !== row.project) {
          throw new ApiError(400, 'invalid_request', `The key is scoped to the repository "${row.repository}" of project "${row.project}"; make a new key for another project.`);
        }
        row.project = body.project;
        row.projectId = project?.id ?? null;
      }
      if (body.aliases !== undefined) row.aliases = body.aliases;
      if (body.guardrails !== undefined) row.guardrails = body.guardrails;
      if (body.expires_at !== undefined) row.expiresAt = body.expires_at === null ? null : new Date(body.expires_at);
      if (body.metadata !== undefined) row.metadata = body.metadata;
      if (body.key_alias !== undefined) row.keyAlias = body.key_alias;
      if (body.max_budget !== undefined) row.maxBudget = body.max_budget;
      if (body.budget_duration !== undefined) row.budgetDuration = body.budget_duration;
      if (body.rpm_limit !== undefined) row.rpmLimit = body.rpm_limit;
      if (body.tpm_limit !== undefined) row.tpmLimit = body.tpm_limit;
      if (body.max_parallel_requests !== undefined) row.maxParallelRequests = body.max_parallel_requests;
      if (body.soft_budget !== undefined) row.softBudget = body.soft_budget;
      if (body.user_id !== undefined) row.userId = body.user_id;
      if (body.model_rpm_limit !== undefined) row.modelRpmLimit = body.model_rpm_limit ?? {};
      if (body.model_tpm_limit !== undefined) row.modelTpmLimit = body.model_tpm_limit ?? {};
      if (body.model_max_budget !== undefined) row.modelMaxBudget = modelBudgets(body.model_max_budget ?? {}) ?? {};
    });
  }

  setBlocked(id: string, blocked: boolean): Promise<VirtualKey> {
    return this.change(id, (row) => {
      row.blocked = blocked;
    });
  }

  /** A new key for the same row; the old one stops working at once in this process. */
  async rotate(id: string): Promise<{ row: VirtualKey; key: string }> {
    const key = VIRTUAL_KEYS.generate();
    const row = await this.change(id, (row) => {
      row.keyHash = VIRTUAL_KEYS.hash(key);
      row.keyHint = VIRTUAL_KEYS.hint(key);
    });
    return { row, key };
  }

  /** The key a LiteLLM script names: by the key itself, its SHA-256 (LiteLLM's `token`) or its id. */
  async find(reference: string): Promise<VirtualKey | undefined> {
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(reference)) return (await this.keys.findOneBy({ id: reference })) ?? undefined;
    const keyHash = /^[0-9a-f]{64}$/.test(reference) ? reference : VIRTUAL_KEYS.hash(reference);
    return (await this.keys.findOneBy({ keyHash })) ?? undefined;
  }

  /** One page of the keys of `projects` ('all': every key), filtered by key_alias or hash, sorted; with the count of all that match. */
  async page(
    projects: 'all' | string[],
    options: { page: number; size: number; keyAlias?: string; keyHash?: string; userId?: string; sortBy: string; descending: boolean },
  ): Promise<{ rows: VirtualKey[]; total: number }> {
    const where = {
      ...(projects === 'all' ? {} : { project: In(projects) }),
      ...(options.keyAlias !== undefined ? { keyAlias: options.keyAlias } : {}),
      ...(options.keyHash !== undefined ? { keyHash: options.keyHash } : {}),
      ...(options.userId !== undefined ? { userId: options.userId } : {}),
    };
    const column = SORT_COLUMNS[options.sortBy] ?? 'createdAt';
    const direction = options.descending ? 'DESC' : 'ASC';
    const [rows, total] = await this.keys.findAndCount({ where, order: { [column]: direction, id: direction }, skip: (options.page - 1) * options.size, take: options.size });
    return { rows, total };
  }

  findByAlias(keyAlias: string): Promise<VirtualKey | null> {
    return this.keys.findOneBy({ keyAlias });
  }

  async delete(id: string): Promise<void> {
    const row = await this.get(id);
    await this.keys.delete({ id });
    this.changes.publish(row.keyHash);
  }

  /** key_alias is unique: 409 when another key has it. */
  /** Every guardrail a key is to carry is one of the config's (400 naming those it has). */
  /** 400 unknown_guardrail unless every name is one of the config's guardrails (a key's, or a project's). */
  requireGuardrails(names: readonly string[] | undefined): void {
    const unknown = (names ?? []).filter((name) => !this.guardrails.has(name));
    if (unknown.length === 0) return;
    const { quoted, more } = excerptList(unknown);
    const known = this.guardrails.size === 0 ? 'the config has none' : `it has ${[...this.guardrails].map((name) => `"${name}"`).join(', ')}`;
    throw new ApiError(
      400,
      'unknown_guardrail',
      `No guardrail named ${quoted.map((name) => `"${name}"`).join(', ')}${more > 0 ? ` (and ${more} more)` : ''} is configured; ${known}.`,
      {
        field: 'guardrails',
      },
    );
  }

  private async requireFreeAlias(keyAlias: string, exceptId?: string): Promise<void> {
    const holder = await this.keys.findOneBy({ keyAlias });
    if (holder && holder.id !== exceptId) throw new ApiError(409, 'key_alias_taken', `Another key already has the key_alias "${excerpt(keyAlias)}".`);
  }

  private async change(id: string, apply: (row: VirtualKey) => void): Promise<VirtualKey> {
    const row = await this.get(id);
    const oldHash = row.keyHash;
    apply(row);
    const saved = await this.keys.save(row);
    this.changes.publish(oldHash);
    return saved;
  }
}
