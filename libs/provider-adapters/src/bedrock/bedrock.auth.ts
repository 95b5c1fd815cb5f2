import { Sha256 } from '@aws-crypto/sha256-js';
import { fromIni, fromNodeProviderChain, fromTemporaryCredentials, fromWebToken } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ProviderDeployment } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';

type CredentialProvider = ReturnType<typeof fromNodeProviderChain>;

/** The `litellm_params` Bedrock reads, as LiteLLM names them. */
export const BEDROCK_SETTINGS = [
  'api_base',
  'api_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'aws_region_name',
  'aws_role_name',
  'aws_session_name',
  'aws_web_identity_token',
  'aws_profile_name',
  'aws_sts_endpoint',
  'aws_bedrock_runtime_endpoint',
] as const;

interface DeploymentAuth {
  /** `https://bedrock-runtime.<region>.amazonaws.com`, or the configured endpoint (a VPC endpoint, a proxy, the fake). */
  endpoint: string;
  /** The headers of a POST of `body` to `url`, with its authorization. */
  authorize(url: URL, headers: Record<string, string>, body: Buffer): Promise<Record<string, string>>;
}

// One a deployment, made on its first call: the credential providers cache and refresh what they fetch.
const auths = new WeakMap<ProviderDeployment, DeploymentAuth>();

// Keys that choose SigV4 over a Bedrock API key.
const SIGV4_SETTINGS = ['aws_access_key_id', 'aws_role_name', 'aws_profile_name'];

/**
 * The deployment's runtime endpoint and how its requests are authorized. A Bedrock API key
 * (`api_key`, or AWS_BEARER_TOKEN_BEDROCK) is sent as a bearer token unless SigV4 credentials are
 * configured. Otherwise requests are signed with SigV4; credentials, in LiteLLM's order: keys in
 * `litellm_params` (with a session token), an assumed role (`aws_role_name`, through a web
 * identity token when `aws_web_identity_token` is given, else with the keys or the default chain
 * as the caller), a named profile, else the standard AWS chain (environment, shared files, SSO,
 * container and instance roles).
 */
export function bedrockAuth(deployment: ProviderDeployment): DeploymentAuth {
  const known = auths.get(deployment);
  if (known) return known;
  const params = deployment.params ?? {};
  const region = params['aws_region_name'];
  if (!region) {
    throw new ProviderError(500, 'server_error', `The Bedrock deployment "${deployment.model}" has no region: set aws_region_name or AWS_REGION.`, 'provider_misconfigured');
  }
  const endpoint = (params['aws_bedrock_runtime_endpoint'] ?? deployment.apiBase ?? `https://bedrock-runtime.${region}.amazonaws.com`).replace(/\/+$/, '');
  const apiKey = deployment.apiKey;
  let made: DeploymentAuth;
  if (apiKey !== undefined && !SIGV4_SETTINGS.some((key) => params[key] !== undefined)) {
    made = { endpoint, authorize: async (_url, headers) => ({ ...headers, authorization: `Bearer ${apiKey}` }) };
  } else {
    const signer = new SignatureV4({ service: 'bedrock', region, credentials: credentialsFor(params, region), sha256: Sha256 });
    made = { endpoint, authorize: (url, headers, body) => signedHeaders(signer, url, headers, body) };
  }
  auths.set(deployment, made);
  return made;
}

function credentialsFor(params: Readonly<Record<string, string>>, region: string): CredentialProvider {
  const keyId = params['aws_access_key_id'];
  const secret = params['aws_secret_access_key'];
  const keys = keyId && secret ? { accessKeyId: keyId, secretAccessKey: secret, ...(params['aws_session_token'] ? { sessionToken: params['aws_session_token'] } : {}) } : undefined;
  const roleArn = params['aws_role_name'];
  const roleSessionName = params['aws_session_name'] ?? 'arbor-ai-gateway';
  const clientConfig = { region, ...(params['aws_sts_endpoint'] ? { endpoint: params['aws_sts_endpoint'] } : {}) };
  if (roleArn && params['aws_web_identity_token']) {
    return fromWebToken({ roleArn, webIdentityToken: params['aws_web_identity_token'], roleSessionName, clientConfig });
  }
  if (roleArn) {
    const caller = keys ? async () => keys : params['aws_profile_name'] ? fromIni({ profile: params['aws_profile_name'] }) : fromNodeProviderChain();
    return fromTemporaryCredentials({ params: { RoleArn: roleArn, RoleSessionName: roleSessionName }, masterCredentials: caller, clientConfig });
  }
  if (keys) return async () => keys;
  if (params['aws_profile_name']) return fromIni({ profile: params['aws_profile_name'] });
  return fromNodeProviderChain();
}

/** The headers of a signed POST of `body` to `url` (host included in the signature; undici sends the same host). */
async function signedHeaders(signer: SignatureV4, url: URL, headers: Record<string, string>, body: Buffer): Promise<Record<string, string>> {
  let signed;
  try {
    signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...headers, host: url.host },
      body,
    });
  } catch (error) {
    // No credentials anywhere in the chain, or STS refused the role: the deployment's configuration, not the caller.
    throw new ProviderError(500, 'server_error', `No AWS credentials for Bedrock: ${(error as Error).message}`, 'provider_misconfigured');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) if (name !== 'host') out[name] = String(value);
  return out;
}
