import createClient from 'openapi-fetch';
import { answer, ApiRequestError, type ControlPlanePaths, type ControlPlaneSchemas } from '../api/api-client';

export type SuiteModule = ControlPlaneSchemas['SuiteModuleResponse'];

/**
 * What a product serves at `GET /api/v1/ui/config` (public, no token) so that one build of its UI
 * runs against any issuer: the OIDC issuer and the product's public UI client, and where the
 * control plane is (the shell endpoints and the module rail come from there). The control plane
 * itself answers with `modules` instead of `control_plane_url`.
 */
export interface ProductUiConfig {
  issuer: string;
  client_id: string;
  control_plane_url?: string;
  modules?: SuiteModule[];
}

/** Everything the shell starts from, before anyone signs in. */
export interface ShellConfig {
  issuer: string;
  clientId: string;
  /** The control plane's origin: the shell endpoints (`/api/v1/me`, …) are called there. */
  controlPlaneUrl: string;
  /** The module rail: the control plane first, then every product with a CP_SUITE_<PRODUCT>_URL. */
  modules: SuiteModule[];
}

async function productUiConfig(): Promise<ProductUiConfig> {
  const response = await fetch(`${window.location.origin}/api/v1/ui/config`, { headers: { accept: 'application/json' } });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw ApiRequestError.of(response.status, body);
  return body as ProductUiConfig;
}

/** This service's UI config, and the control plane's modules when this service is a product. */
export async function loadShellConfig(): Promise<ShellConfig> {
  const own = await productUiConfig();
  const controlPlaneUrl = (own.control_plane_url ?? window.location.origin).replace(/\/$/, '');
  const modules = own.modules ?? (await answer(createClient<ControlPlanePaths>({ baseUrl: controlPlaneUrl }).GET('/api/v1/ui/config'))).modules;
  return { issuer: own.issuer, clientId: own.client_id, controlPlaneUrl, modules };
}
