import { LRUCache } from 'lru-cache';
import { ClientCredentials, ClientCredentialsError } from '../identity/client-credentials';
import type { GroupedPermissionsView, SinglePermissionsView } from '../permissions/permission-keys';
import { ControlPlaneError, ControlPlaneForbiddenError, ControlPlaneNotFoundError, ControlPlaneUnavailableError } from './control-plane-client.errors';
import type {
  AnswerSource,
  ControlPlaneClientOptions,
  EffectivePermissions,
  GroupedEffectivePermissions,
  PermissionsQuery,
  ProjectRecord,
  RepositoryRecord,
  RepositoryToken,
} from './control-plane-client.types';

const DEFAULT_MAX_AGE_SECONDS = 60;

interface CachedAnswer {
  body: unknown;
  etag?: string;
  freshUntil: number;
}

/** The largest page the control plane gives. */
const REPOSITORIES_PER_PAGE = 500;

/**
 * The product's client of the control plane: effective permissions (cached per Cache-Control
 * max-age, revalidated with If-None-Match, concurrent lookups coalesced, LRU-bounded), the
 * repositories and the repository token, all with the product's client-credentials token.
 */
export class ControlPlaneClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly staleIfErrorMs: number;
  private readonly answers: LRUCache<string, CachedAnswer>;
  private readonly inFlight = new Map<string, Promise<{ body: unknown; source: AnswerSource }>>();
  private readonly tokens: ClientCredentials;

  constructor(options: ControlPlaneClientOptions) {
    const problems = clientProblems(options);
    if (problems.length > 0) throw new Error(`ControlPlaneClient: ${problems.join('; ')}`);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.staleIfErrorMs = (options.staleIfError ?? 0) * 1000;
    this.answers = new LRUCache({ max: options.maxCacheEntries ?? 10_000 });
    this.tokens = new ClientCredentials({
      issuer: options.issuer,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      timeoutMs: this.timeoutMs,
      fetch: this.fetch,
      ...(options.tokenEndpoint ? { tokenEndpoint: options.tokenEndpoint } : {}),
    });
  }

  /**
   * The single view for a user (by `subject` or `userId`), on a project (by `project` slug or
   * `projectId`) or the workspace. When the control plane cannot be reached the answer is empty
   * (`source: 'unavailable'`), or a stale one within `staleIfError`. 403/404 are thrown.
   */
  async effectivePermissions(query: PermissionsQuery): Promise<EffectivePermissions> {
    const { body, source } = await this.cachedGet(permissionsPath(query, false));
    if (source === 'unavailable') return { user_id: '', permissions: [], source };
    const view = body as SinglePermissionsView;
    return { user_id: view.user_id, permissions: [...view.permissions], source };
  }

  /** The grouped view (`group=projects`) of a user: workspace keys and keys by project slug. Same caching and failure rules. */
  async groupedPermissions(query: { subject: string } | { userId: string }): Promise<GroupedEffectivePermissions> {
    const { body, source } = await this.cachedGet(permissionsPath(query as PermissionsQuery, true));
    if (source === 'unavailable') return { user_id: '', workspace: [], projects: {}, source };
    const view = body as GroupedPermissionsView;
    return { user_id: view.user_id, workspace: [...view.workspace], projects: structuredClone(view.projects), source };
  }

  /**
   * One project, by its id or its slug; null when the control plane does not know it (deleted, or
   * renamed away from that slug). Not cached: what a sync or a check before a creation asks.
   */
  async findProject(query: { id: string } | { slug: string }): Promise<ProjectRecord | null> {
    try {
      if ('id' in query) return (await (await this.call(`/api/v1/projects/${encodeURIComponent(query.id)}`)).json()) as ProjectRecord;
      const response = await this.call(`/api/v1/projects?${new URLSearchParams({ slug: query.slug, limit: '1' }).toString()}`);
      const { projects } = (await response.json()) as { projects: ProjectRecord[] };
      return projects.find((project) => project.slug === query.slug) ?? null;
    } catch (error) {
      // 404, or 400 for an id that is not a UUID or a slug that is not one: no such project.
      if (error instanceof ControlPlaneError && (error.status === 404 || error.status === 400)) return null;
      throw error;
    }
  }

  /** The repositories of one project (by id), from `listRepositories()`. */
  async projectRepositories(projectId: string): Promise<RepositoryRecord[]> {
    return (await this.listRepositories()).filter((repository) => repository.project_id === projectId);
  }

  /** Every repository of every project (machine clients and administrators only), every page. */
  async listRepositories(): Promise<RepositoryRecord[]> {
    const all: RepositoryRecord[] = [];
    let after: string | null = null;
    do {
      const query = `limit=${REPOSITORIES_PER_PAGE}${after ? `&after_id=${encodeURIComponent(after)}` : ''}`;
      const response = await this.call(`/api/v1/repositories?${query}`);
      const page = (await response.json()) as { repositories: RepositoryRecord[]; next_after_id?: string | null };
      all.push(...page.repositories);
      after = page.next_after_id ?? null;
    } while (after);
    return all;
  }

  /** The project's decrypted repository token. Fetched on every call, never cached or logged here. */
  async getRepositoryToken(projectId: string): Promise<RepositoryToken> {
    const response = await this.call(`/api/v1/projects/${encodeURIComponent(projectId)}/repository-secret/value`);
    return (await response.json()) as RepositoryToken;
  }

  /** Forgets every cached answer (e.g. after a project sync for everything). */
  clearCache(): void {
    this.answers.clear();
  }

  private cachedGet(path: string): Promise<{ body: unknown; source: AnswerSource }> {
    const cached = this.answers.get(path);
    if (cached && Date.now() < cached.freshUntil) return Promise.resolve({ body: cached.body, source: 'cache' });
    const pending = this.inFlight.get(path);
    if (pending) return pending;
    const lookup = this.revalidate(path, cached).finally(() => this.inFlight.delete(path));
    this.inFlight.set(path, lookup);
    return lookup;
  }

  private async revalidate(path: string, cached: CachedAnswer | undefined): Promise<{ body: unknown; source: AnswerSource }> {
    let response: Response;
    try {
      response = await this.call(path, cached?.etag ? { 'if-none-match': cached.etag } : {});
    } catch (error) {
      if (!(error instanceof ControlPlaneUnavailableError)) throw error;
      if (cached && Date.now() < cached.freshUntil + this.staleIfErrorMs) return { body: cached.body, source: 'stale' };
      return { body: undefined, source: 'unavailable' };
    }
    const maxAge = maxAgeOf(response.headers.get('cache-control'));
    const etag = response.headers.get('etag') ?? cached?.etag;
    if (response.status === 304 && cached) {
      const renewed = { body: cached.body, freshUntil: Date.now() + maxAge * 1000, ...(etag ? { etag } : {}) };
      this.answers.set(path, renewed);
      return { body: cached.body, source: 'control-plane' };
    }
    const body: unknown = await response.json();
    if (maxAge > 0) this.answers.set(path, { body, freshUntil: Date.now() + maxAge * 1000, ...(etag ? { etag } : {}) });
    else this.answers.delete(path);
    return { body, source: 'control-plane' };
  }

  /** A GET with our token; 2xx and 304 come back, anything else is thrown as a typed error. */
  private async call(path: string, headers: Record<string, string> = {}, retried = false): Promise<Response> {
    const token = await this.accessToken();
    let response: Response;
    try {
      response = await this.fetch(`${this.baseUrl}${path}`, {
        headers: { accept: 'application/json', authorization: `Bearer ${token}`, ...headers },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ControlPlaneUnavailableError(`the control plane could not be reached at ${this.baseUrl}: ${errorText(error)}`);
    }
    if (response.ok || response.status === 304) return response;
    if (response.status === 401 && !retried) {
      // Our token may have been revoked or the control plane's clock differs: one new token, one retry.
      await response.body?.cancel();
      this.tokens.invalidate(token);
      return this.call(path, headers, true);
    }
    const { code, message } = await errorOf(response);
    const text = `GET ${path.split('?')[0]} answered ${response.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
    if (response.status === 403) throw new ControlPlaneForbiddenError(text, 403, code);
    if (response.status === 404) throw new ControlPlaneNotFoundError(text, 404, code);
    if (response.status >= 500) throw new ControlPlaneUnavailableError(text, response.status, code);
    throw new ControlPlaneError(text, response.status, code);
  }

  private async accessToken(): Promise<string> {
    try {
      return await this.tokens.get();
    } catch (error) {
      if (!(error instanceof ClientCredentialsError)) throw error;
      // A refusal by the identity provider (wrong secret) is ours to fix; anything else may pass.
      const refused = error.status !== undefined && error.status < 500;
      throw refused ? new ControlPlaneError(error.message, error.status) : new ControlPlaneUnavailableError(error.message);
    }
  }
}

function permissionsPath(query: PermissionsQuery, grouped: boolean): string {
  const parameters = new URLSearchParams();
  if ('subject' in query && query.subject !== undefined) parameters.set('subject', query.subject);
  if ('userId' in query && query.userId !== undefined) parameters.set('user_id', query.userId);
  if (parameters.size !== 1) throw new TypeError('effectivePermissions: pass exactly one of subject and userId');
  if (!grouped) {
    if ('project' in query && query.project !== undefined) parameters.set('project', query.project);
    if ('projectId' in query && query.projectId !== undefined) parameters.set('project_id', query.projectId);
    if (parameters.size > 2) throw new TypeError('effectivePermissions: pass at most one of project and projectId');
  } else {
    parameters.set('group', 'projects');
  }
  return `/api/v1/permissions/effective?${parameters.toString()}`;
}

/** `max-age` of a Cache-Control header; 0 for no-store/no-cache; the contract's 60 s when absent. */
export function maxAgeOf(cacheControl: string | null): number {
  if (cacheControl === null) return DEFAULT_MAX_AGE_SECONDS;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return 0;
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return match ? Number(match[1]) : DEFAULT_MAX_AGE_SECONDS;
}

async function errorOf(response: Response): Promise<{ code?: string; message?: string }> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    return {
      ...(typeof body.error?.code === 'string' ? { code: body.error.code } : {}),
      ...(typeof body.error?.message === 'string' ? { message: body.error.message } : {}),
    };
  } catch {
    return {};
  }
}

function clientProblems(options: Partial<ControlPlaneClientOptions>): string[] {
  const problems: string[] = [];
  for (const name of ['baseUrl', 'issuer'] as const) {
    const value = options[name];
    let ok = false;
    try {
      ok = typeof value === 'string' && ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      ok = false;
    }
    if (!ok) problems.push(`${name} must be an http(s) URL`);
  }
  if (typeof options.clientId !== 'string' || options.clientId === '') problems.push('clientId must be a non-empty string');
  if (typeof options.clientSecret !== 'string' || options.clientSecret === '') problems.push('clientSecret must be a non-empty string');
  if (options.staleIfError !== undefined && !(Number.isFinite(options.staleIfError) && options.staleIfError >= 0)) problems.push('staleIfError must be a number of seconds ≥ 0');
  if (options.maxCacheEntries !== undefined && !(Number.isInteger(options.maxCacheEntries) && options.maxCacheEntries > 0))
    problems.push('maxCacheEntries must be a positive integer');
  return problems;
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
