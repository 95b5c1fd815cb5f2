/** Real tokens from the dev identity provider the jest run started (TEST_OIDC_ISSUER_URL). */

export interface DevIdpTokenResponse {
  access_token: string;
  expires_in: number;
  token_type: string;
}

let tokenEndpoint: Promise<string> | undefined;

export function testIssuer(): string {
  const issuer = process.env['TEST_OIDC_ISSUER_URL'];
  if (!issuer) {
    throw new Error("TEST_OIDC_ISSUER_URL is not set: add `globals: { arbor: { oidc: true } }` to this project's jest config");
  }
  return issuer;
}

async function discoverTokenEndpoint(): Promise<string> {
  const response = await fetch(`${testIssuer()}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`dev-idp discovery answered ${response.status}`);
  const document = (await response.json()) as { token_endpoint: string };
  return document.token_endpoint;
}

async function requestToken(form: Record<string, string>): Promise<string> {
  tokenEndpoint ??= discoverTokenEndpoint();
  const response = await fetch(await tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const body = (await response.json()) as DevIdpTokenResponse & { error?: string; error_description?: string };
  if (!response.ok) {
    throw new Error(`dev-idp refused the token request: ${body.error} ${body.error_description ?? ''}`);
  }
  return body.access_token;
}

/** A person's access token through the `dev-cli` password grant (password = user name for demo users). */
export function personToken(username: string, password = username): Promise<string> {
  return requestToken({ grant_type: 'password', client_id: 'dev-cli', username, password, scope: 'openid' });
}

/** A machine token through the client-credentials grant (dev secrets are `dev-<client>-secret`). */
export function machineToken(clientId: string, clientSecret = `dev-${clientId}-secret`): Promise<string> {
  return requestToken({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
}
