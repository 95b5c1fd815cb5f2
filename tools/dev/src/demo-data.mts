// The demo data `npm start` puts into the control plane once its services are healthy, through
// the real REST API with the demo administrator's token (docs/control-plane.md: Demo data). It creates what is
// missing and leaves alone what exists, so a second start changes nothing and your own edits
// survive a restart. Each demo person then signs in once, which links their pre-created record.
// Then one AI gateway key for alpha, through the gateway's admin API with the master key.
import fs from 'node:fs';

export interface DemoProject {
  slug: string;
  name: string;
  repository: { source_host: string; owner: string; name: string; branch: string; installation_id: string };
  token?: string;
}

export interface DemoUser {
  username: string;
  email: string;
  display_name: string;
  workspace: string[];
  projects: Record<string, string[]>;
  disabled?: boolean;
}

export const DEMO_WORKSPACE = { name: 'Arbor Demo', timezone: 'Europe/Berlin' };

export const DEMO_PROJECTS: DemoProject[] = [
  {
    slug: 'alpha',
    name: 'Alpha',
    repository: { source_host: 'github.com', owner: 'arbor-demo', name: 'alpha-service', branch: 'main', installation_id: '4242' },
    token: 'ghs_demoAlphaToken0001',
  },
  {
    slug: 'beta',
    name: 'Beta',
    repository: { source_host: 'github.com', owner: 'arbor-demo', name: 'beta-web', branch: 'develop', installation_id: '4243' },
  },
];

/**
 * The realm role control-plane-admin makes admin an administrator; the grants here let admin see
 * every project's figures on the suite dashboard's gateway cards (viewer of both gateways,
 * workspace-wide), as an operator looking at the suite for the first time would expect.
 */
export const DEMO_USERS: DemoUser[] = [
  {
    username: 'admin',
    email: 'admin@arbor.local',
    display_name: 'Ada Administrator',
    workspace: ['ai-gateway', 'mcp-gateway', 'ai-gateway.viewer', 'mcp-gateway.viewer'],
    projects: {},
  },
  {
    username: 'alice',
    email: 'alice@arbor.local',
    display_name: 'Alice Anderson',
    workspace: ['ai-gateway', 'mcp-gateway'],
    projects: { alpha: ['ai-gateway.operator', 'mcp-gateway.operator'], beta: ['ai-gateway.viewer'] },
  },
  { username: 'bob', email: 'bob@arbor.local', display_name: 'Bob Brown', workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.viewer'] } },
  { username: 'carol', email: 'carol@arbor.local', display_name: 'Carol Clark', workspace: ['ai-gateway'], projects: {}, disabled: true },
];

/** The workspace as the control plane's first migration leaves it. */
const FRESH_WORKSPACE = { name: 'Arbor', timezone: 'UTC' };

export interface DemoDataOptions {
  controlPlaneUrl: string;
  issuer: string;
  /** The demo administrator (realm role control-plane-admin). */
  admin?: { username: string; password: string };
}

interface Project {
  id: string;
  slug: string;
}

interface Repository {
  source_host: string;
  owner: string;
  name: string;
}

interface User {
  id: string;
  subject: string | null;
  email: string | null;
}

interface Grants {
  workspace: string[];
  projects: Record<string, string[]>;
}

class ApiCallFailed extends Error {}

/** Seeds the demo data; answers what it created or changed (empty when everything was there). */
export async function seedDemoData(options: DemoDataOptions): Promise<string[]> {
  const admin = options.admin ?? { username: 'admin', password: 'admin' };
  const token = await personToken(options.issuer, admin.username, admin.password);
  const api = async <T,>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${options.controlPlaneUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new ApiCallFailed(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const done: string[] = [];

  const workspace = await api<{ name: string; timezone: string }>('GET', '/api/v1/workspace/settings');
  if (workspace.name === FRESH_WORKSPACE.name && workspace.timezone === FRESH_WORKSPACE.timezone) {
    await api('PUT', '/api/v1/workspace/settings', DEMO_WORKSPACE);
    done.push(`workspace ${DEMO_WORKSPACE.name} (${DEMO_WORKSPACE.timezone})`);
  }

  const { projects } = await api<{ projects: Project[] }>('GET', '/api/v1/projects');
  for (const demo of DEMO_PROJECTS) {
    let project = projects.find((candidate) => candidate.slug === demo.slug);
    if (!project) {
      project = await api<Project>('POST', '/api/v1/projects', { slug: demo.slug, name: demo.name });
      done.push(`project ${demo.slug}`);
    }
    const { repositories } = await api<{ repositories: Repository[] }>('GET', `/api/v1/projects/${project.id}/repositories`);
    const { source_host, owner, name } = demo.repository;
    const sameRepository = (repository: Repository) =>
      [repository.source_host, repository.owner, repository.name].join('/').toLowerCase() === [source_host, owner, name].join('/').toLowerCase();
    if (!repositories.some(sameRepository)) {
      await api('POST', `/api/v1/projects/${project.id}/repositories`, demo.repository);
      done.push(`repository ${source_host}/${owner}/${name}`);
    }
    if (demo.token) {
      const secret = await api<{ configured: boolean }>('GET', `/api/v1/projects/${project.id}/repository-secret`);
      if (!secret.configured) {
        await api('PUT', `/api/v1/projects/${project.id}/repository-secret`, { value: demo.token });
        done.push(`repository token of ${demo.slug}`);
      }
    }
  }

  for (const demo of DEMO_USERS) {
    // Pre-created by email, so the grants are there before the person first signs in.
    const { users } = await api<{ users: User[] }>('GET', `/api/v1/users?email=${encodeURIComponent(demo.email)}`);
    let user = users[0];
    const created = !user;
    if (!user) {
      user = await api<User>('POST', '/api/v1/users', { email: demo.email, display_name: demo.display_name });
      done.push(`user ${demo.email}`);
    }
    const grants = await api<Grants>('GET', `/api/v1/users/${user.id}/permissions`);
    if (grants.workspace.length === 0 && Object.keys(grants.projects).length === 0) {
      await api('PUT', `/api/v1/users/${user.id}/permissions`, { workspace: demo.workspace, projects: demo.projects });
      done.push(`permissions of ${demo.username}`);
    }
    // Only a user made here: someone an administrator enabled again stays enabled.
    if (created && demo.disabled) {
      await api('PATCH', `/api/v1/users/${user.id}`, { disabled: true });
      done.push(`${demo.username} disabled`);
    }
    // Signed in once, as a person does, so the record knows their subject and products asking
    // by subject (the suite's usual question) find them before they open any UI.
    if (user.subject === null) {
      const own = await fetch(`${options.controlPlaneUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${await personToken(options.issuer, demo.username, demo.username)}` },
      });
      if (!own.ok) throw new ApiCallFailed(`GET /api/v1/me as ${demo.username} answered ${own.status}: ${await own.text()}`);
      done.push(`${demo.username} signed in once`);
    }
  }
  return done;
}

/** A person's token through the password grant of the dev-cli client (the dev identity provider and Keycloak alike). */
async function personToken(issuer: string, username: string, password: string): Promise<string> {
  const discovery = await fetch(`${issuer}/.well-known/openid-configuration`);
  if (!discovery.ok) throw new ApiCallFailed(`the identity provider's discovery answered ${discovery.status}`);
  const { token_endpoint } = (await discovery.json()) as { token_endpoint: string };
  const response = await fetch(token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'dev-cli', username, password }),
  });
  const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!response.ok || !body.access_token) {
    throw new ApiCallFailed(`no token for ${username}: ${body.error ?? response.status} ${body.error_description ?? ''}`.trim());
  }
  return body.access_token;
}

/** The AI gateway's demo key: made by the admin API, recognised again by this metadata. */
export const DEMO_GATEWAY_KEY = { project: 'alpha', metadata: { demo: 'npm start' } };

export interface DemoGatewayKey {
  project: string;
  key: string;
  /** Where the key is kept between starts. */
  file: string;
}

interface GatewayKey {
  id: string;
  key?: string;
  key_hint: string;
  metadata: Record<string, unknown>;
}

/**
 * Makes sure project alpha has the demo key and that the data directory holds its plaintext,
 * which the gateway shows only when it creates or rotates a key: a second start finds both and
 * changes nothing. A demo key whose plaintext is not there (a new data directory, an external
 * database) is rotated; a deleted one is made again.
 */
export async function seedDemoGatewayKey(options: { gatewayUrl: string; masterKey: string; keyFile: string }): Promise<{ key: DemoGatewayKey; done: string[] }> {
  const file = options.keyFile;
  const api = async <T,>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${options.gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.masterKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new ApiCallFailed(`the AI gateway's ${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  };
  const kept = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { id: string; key: string }) : undefined;
  const { keys } = await api<{ keys: GatewayKey[] }>('GET', `/api/v1/keys?project=${DEMO_GATEWAY_KEY.project}`);
  const demo = keys.find((key) => key.metadata['demo'] === DEMO_GATEWAY_KEY.metadata.demo);
  const answer = (key: string) => ({ project: DEMO_GATEWAY_KEY.project, key, file });
  if (demo && kept?.id === demo.id && demo.key_hint.endsWith(kept.key.slice(-4))) return { key: answer(kept.key), done: [] };

  const made = demo
    ? await api<GatewayKey>('POST', `/api/v1/keys/${demo.id}/rotate`)
    : await api<GatewayKey>('POST', '/api/v1/keys', { project: DEMO_GATEWAY_KEY.project, metadata: DEMO_GATEWAY_KEY.metadata });
  if (!made.key) throw new ApiCallFailed(`the AI gateway did not show the ${demo ? 'rotated' : 'new'} key`);
  fs.writeFileSync(file, JSON.stringify({ id: made.id, key: made.key }, null, 2), { mode: 0o600 });
  return { key: answer(made.key), done: [`AI gateway key of ${DEMO_GATEWAY_KEY.project}${demo ? ' (rotated: its key was not in the data directory)' : ''}`] };
}
