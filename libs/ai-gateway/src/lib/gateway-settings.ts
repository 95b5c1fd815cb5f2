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
  /** AIGW_MAX_UPLOAD_SIZE: the largest multipart upload accepted (DEFAULT_MAX_UPLOAD_BYTES when unset). */
  maxUploadBytes?: number;
  /** AIGW_BUDGETS_WITHOUT_REDIS; closed when unset. */
  budgetsWithoutRedis?: 'closed' | 'open';
}

/** Uploads (image edits, audio to transcribe) up to 1 GiB unless AIGW_MAX_UPLOAD_SIZE says otherwise; they are spooled to disk, never held in memory. */
export const DEFAULT_MAX_UPLOAD_BYTES = 1024 ** 3;

/** Stored responses are kept 30 days unless AIGW_RESPONSES_RETENTION says otherwise. */
export const DEFAULT_RESPONSES_RETENTION_MS = 30 * 86_400_000;

export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');
