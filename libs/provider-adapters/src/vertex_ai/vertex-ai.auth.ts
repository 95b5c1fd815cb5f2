import { GoogleAuth, type AuthClient } from 'google-auth-library';
import type { ProviderDeployment } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';

const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

interface DeploymentAuth {
  client: Promise<AuthClient>;
  project: Promise<string>;
  location: string;
}

// One GoogleAuth a deployment, made on its first call: the library caches and refreshes its tokens.
const auths = new WeakMap<ProviderDeployment, DeploymentAuth>();

/**
 * The deployment's Google credentials, project and location. `vertex_credentials` is a service
 * account key (its JSON, or the path of its file, as LiteLLM takes it); without it, application
 * default credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, the metadata server). Service
 * account keys sign their own JWT with the cloud-platform scope (`useJWTAccessWithScope`, as
 * Google's own Vertex AI client libraries do), so no token endpoint round trip precedes a call.
 */
export function vertexAuth(deployment: ProviderDeployment): DeploymentAuth {
  const known = auths.get(deployment);
  if (known) return known;
  const params = deployment.params ?? {};
  const source = params['vertex_credentials']?.trim();
  let credentials: Record<string, unknown> | undefined;
  if (source?.startsWith('{')) {
    try {
      credentials = JSON.parse(source) as Record<string, unknown>;
    } catch {
      throw misconfigured(`The vertex_credentials of "${deployment.model}" are not valid JSON.`);
    }
  }
  const auth = new GoogleAuth({
    scopes: [CLOUD_PLATFORM],
    ...(credentials ? { credentials } : source ? { keyFilename: source } : {}),
    ...(params['vertex_project'] ? { projectId: params['vertex_project'] } : {}),
  });
  auth.useJWTAccessWithScope = true;
  const made: DeploymentAuth = {
    client: auth.getClient(),
    project: params['vertex_project'] ? Promise.resolve(params['vertex_project']) : auth.getProjectId(),
    location: params['vertex_location'] ?? 'us-central1',
  };
  // A failure is reported per call (below); a rejected promise nobody awaited yet is not a crash.
  made.client.catch(() => undefined);
  made.project.catch(() => undefined);
  auths.set(deployment, made);
  return made;
}

/** The bearer header for a call to `url`, and the project the call is billed to. */
export async function vertexRequestAuth(deployment: ProviderDeployment, url: (project: string, location: string) => URL): Promise<{ url: URL; authorization: string }> {
  const { client, project, location } = vertexAuth(deployment);
  let target: URL;
  let authorization: string | null;
  try {
    target = url(await project, location);
    authorization = (await (await client).getRequestHeaders(target)).get('authorization');
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw misconfigured(`No Google credentials for Vertex AI: ${(error as Error).message}`);
  }
  if (!authorization) throw misconfigured('No Google credentials for Vertex AI: the credentials gave no access token.');
  return { url: target, authorization };
}

function misconfigured(message: string): ProviderError {
  return new ProviderError(500, 'server_error', message, 'provider_misconfigured');
}
