import { GatewayConfig } from './config/gateway-config';
import { KnownModels } from './config/known-models';

/** The checked YAML plus the environment settings the routes need. */
export interface GatewaySettings extends GatewayConfig {
  /** AIGW_MASTER_KEY, else general_settings.master_key. */
  masterKey?: string;
  /** AIGW_RESPONSES_RETENTION: how long a stored response is kept (DEFAULT_RESPONSES_RETENTION_MS when unset). */
  responsesRetentionMs?: number;
  /** The model names the gateway knows (built-in prices and AIGW_PRICE_MAP), for wildcard aliases. */
  knownModels?: KnownModels;
}

/** Stored responses are kept 30 days unless AIGW_RESPONSES_RETENTION says otherwise. */
export const DEFAULT_RESPONSES_RETENTION_MS = 30 * 86_400_000;

export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');
