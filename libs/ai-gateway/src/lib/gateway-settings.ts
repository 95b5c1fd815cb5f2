import { GatewayConfig } from './config/gateway-config';

/** The checked YAML plus the environment settings the routes need. */
export interface GatewaySettings extends GatewayConfig {
  /** AIGW_MASTER_KEY, else general_settings.master_key. */
  masterKey?: string;
}

export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');
