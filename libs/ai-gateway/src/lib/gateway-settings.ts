import { GatewayConfig } from './config/gateway-config';

/** The checked YAML plus the environment settings the routes need. */
export interface GatewaySettings extends GatewayConfig {
  /** AIGW_MASTER_KEY, else general_settings.master_key. */
  masterKey?: string;
  /** AIGW_RESPONSES_RETENTION: how long a stored response is kept (DEFAULT_RESPONSES_RETENTION_MS when unset). */
  responsesRetentionMs?: number;
}

/** Stored responses are kept 30 days unless AIGW_RESPONSES_RETENTION says otherwise. */
export const DEFAULT_RESPONSES_RETENTION_MS = 30 * 86_400_000;

export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');
