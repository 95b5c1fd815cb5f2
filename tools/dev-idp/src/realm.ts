import { readFileSync } from 'node:fs';
import { TOKEN_EXCHANGE_GRANT } from './token-exchange.ts';

/** The part of a Keycloak realm export (the file `kc.sh import` reads) that the dev IdP uses. */
interface KeycloakRealmExport {
  realm: string;
  accessTokenLifespan?: number;
  ssoSessionIdleTimeout?: number;
  ssoSessionMaxLifespan?: number;
  roles?: { realm?: KeycloakRole[] };
  clients?: KeycloakClient[];
  users?: KeycloakUser[];
}

interface KeycloakRole {
  name: string;
  composites?: { realm?: string[] };
}

interface KeycloakClient {
  clientId: string;
  enabled?: boolean;
  publicClient?: boolean;
  secret?: string;
  standardFlowEnabled?: boolean;
  directAccessGrantsEnabled?: boolean;
  serviceAccountsEnabled?: boolean;
  redirectUris?: string[];
  webOrigins?: string[];
  attributes?: Record<string, string>;
  protocolMappers?: { protocolMapper: string; config?: Record<string, string> }[];
}

interface KeycloakUser {
  id: string;
  username: string;
  enabled?: boolean;
  email?: string;
  emailVerified?: boolean;
  firstName?: string;
  lastName?: string;
  credentials?: { type: string; value?: string }[];
  realmRoles?: string[];
  serviceAccountClientId?: string;
}

export interface RealmClient {
  clientId: string;
  /** Public clients authenticate with no secret (`token_endpoint_auth_method: none`). */
  secret?: string;
  grantTypes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  webOrigins: string[];
  /** From the client's `oidc-audience-mapper`s, in their order; for a token-exchange client, the audiences it may exchange for. */
  audiences: string[];
  pkceRequired: boolean;
  /** Keycloak's standard token exchange (`standard.token.exchange.enabled`), for confidential clients only. */
  tokenExchange: boolean;
}

export interface RealmUser {
  id: string;
  username: string;
  email?: string;
  emailVerified: boolean;
  firstName?: string;
  lastName?: string;
  password?: string;
  /** Effective realm roles: the assigned ones with their composites expanded, as Keycloak puts them in tokens. */
  realmRoles: string[];
  serviceAccountClientId?: string;
}

/** Lifetimes in seconds, with Keycloak's defaults where the export says nothing. */
export interface RealmLifetimes {
  accessToken: number;
  ssoSessionIdle: number;
  ssoSessionMax: number;
}

export class Realm {
  readonly name: string;
  readonly lifetimes: RealmLifetimes;
  readonly clients: ReadonlyMap<string, RealmClient>;
  readonly users: readonly RealmUser[];

  constructor(name: string, lifetimes: RealmLifetimes, clients: RealmClient[], users: RealmUser[]) {
    this.name = name;
    this.lifetimes = lifetimes;
    this.clients = new Map(clients.map((client) => [client.clientId, client]));
    this.users = users;
  }

  client(clientId: string): RealmClient {
    const client = this.clients.get(clientId);
    if (!client) throw new Error(`client ${clientId} is not in realm ${this.name}`);
    return client;
  }

  /** A person (not a service account) by id; undefined when unknown. */
  person(id: string): RealmUser | undefined {
    return this.users.find((user) => user.id === id && user.serviceAccountClientId === undefined);
  }

  /** The person with this user name (or e-mail, as Keycloak's `loginWithEmailAllowed`) and password. */
  authenticate(usernameOrEmail: string, password: string): RealmUser | undefined {
    const login = usernameOrEmail.trim().toLowerCase();
    const user = this.users.find((candidate) => candidate.serviceAccountClientId === undefined && (candidate.username === login || candidate.email?.toLowerCase() === login));
    return user?.password !== undefined && user.password === password ? user : undefined;
  }

  serviceAccount(clientId: string): RealmUser {
    const user = this.users.find((candidate) => candidate.serviceAccountClientId === clientId);
    if (!user) throw new Error(`client ${clientId} has no service-account user in realm ${this.name}`);
    return user;
  }

  personNames(): string[] {
    return this.users.filter((user) => user.serviceAccountClientId === undefined).map((user) => user.username);
  }
}

export function loadRealm(file: string): Realm {
  const exported = JSON.parse(readFileSync(file, 'utf8')) as KeycloakRealmExport;
  if (typeof exported.realm !== 'string') throw new Error(`${file} is not a Keycloak realm export (no "realm")`);

  const composites = new Map((exported.roles?.realm ?? []).map((role) => [role.name, role.composites?.realm ?? []]));
  const clients = (exported.clients ?? []).filter((client) => client.enabled !== false).map(toRealmClient);
  const users = (exported.users ?? []).filter((user) => user.enabled !== false).map((user) => toRealmUser(user, composites));
  const realm = new Realm(
    exported.realm,
    {
      accessToken: exported.accessTokenLifespan ?? 300,
      ssoSessionIdle: exported.ssoSessionIdleTimeout ?? 1800,
      ssoSessionMax: exported.ssoSessionMaxLifespan ?? 36000,
    },
    clients,
    users,
  );
  // Keycloak creates a missing service-account user on import; failing here keeps `sub` stable instead.
  for (const client of clients) {
    if (client.grantTypes.includes('client_credentials')) realm.serviceAccount(client.clientId);
  }
  return realm;
}

function toRealmClient(client: KeycloakClient): RealmClient {
  const tokenExchange = client.publicClient !== true && client.attributes?.['standard.token.exchange.enabled'] === 'true';
  const grantTypes = [
    ...(client.standardFlowEnabled === true ? ['authorization_code', 'refresh_token'] : []),
    ...(client.directAccessGrantsEnabled === true ? ['password'] : []),
    ...(client.serviceAccountsEnabled === true && client.publicClient !== true ? ['client_credentials'] : []),
    ...(tokenExchange ? [TOKEN_EXCHANGE_GRANT] : []),
  ];
  const redirectUris = client.redirectUris ?? [];
  const postLogout = client.attributes?.['post.logout.redirect.uris'];
  const audiences = (client.protocolMappers ?? [])
    .filter((mapper) => mapper.protocolMapper === 'oidc-audience-mapper' && mapper.config?.['access.token.claim'] !== 'false')
    .map((mapper) => mapper.config?.['included.custom.audience'] || mapper.config?.['included.client.audience'])
    .filter((audience): audience is string => Boolean(audience));
  return {
    clientId: client.clientId,
    secret: client.publicClient === true ? undefined : client.secret,
    grantTypes,
    redirectUris,
    // Keycloak's "+" means "the valid redirect URIs"; entries are separated by "##".
    postLogoutRedirectUris: postLogout === undefined ? [] : postLogout.split('##').flatMap((uri) => (uri === '+' ? redirectUris : [uri])),
    // "+" means the origins of the redirect URIs.
    webOrigins: (client.webOrigins ?? []).flatMap((origin) => (origin === '+' ? redirectUris.map(originOf) : [origin])),
    audiences,
    pkceRequired: client.publicClient === true || client.attributes?.['pkce.code.challenge.method'] === 'S256',
    tokenExchange,
  };
}

function toRealmUser(user: KeycloakUser, composites: ReadonlyMap<string, string[]>): RealmUser {
  return {
    id: user.id,
    username: user.username.toLowerCase(),
    email: user.email,
    emailVerified: user.emailVerified === true,
    firstName: user.firstName,
    lastName: user.lastName,
    password: user.credentials?.find((credential) => credential.type === 'password')?.value,
    realmRoles: expandRoles(user.realmRoles ?? [], composites),
    serviceAccountClientId: user.serviceAccountClientId,
  };
}

function expandRoles(assigned: string[], composites: ReadonlyMap<string, string[]>): string[] {
  const effective = new Set<string>();
  const visit = (role: string): void => {
    if (effective.has(role)) return;
    effective.add(role);
    for (const member of composites.get(role) ?? []) visit(member);
  };
  for (const role of assigned) visit(role);
  return [...effective];
}

function originOf(uri: string): string {
  return new URL(uri).origin;
}

/** Keycloak's redirect-URI rule: an exact match, or a prefix match for an entry ending in `*`. */
export function uriMatches(allowed: readonly string[], uri: string): boolean {
  return allowed.some((pattern) => (pattern.endsWith('*') ? uri.startsWith(pattern.slice(0, -1)) : uri === pattern));
}
