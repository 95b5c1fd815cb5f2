import type { SettingReader } from '@arbor/config';

/** Each of a call's kept fields (its messages, its answer) is cut at this many characters of its JSON. */
export const CALL_CONTENT_FIELD_CHARS = 16_384;

/** Why no content is kept, by the setting that says so. */
export type CallContentOff = 'store_prompts_in_spend_logs' | 'turn_off_message_logging' | 'disable_spend_logs';

/**
 * Whether calls' messages and answers are kept in their records (LiteLLM's
 * general_settings.store_prompts_in_spend_logs, off by default): litellm_settings.
 * turn_off_message_logging keeps them out whatever it says, and general_settings.disable_spend_logs
 * keeps no record to hold them.
 */
export interface CallContentSettings {
  kept: boolean;
  /** When not kept: the setting that keeps it out. */
  off?: CallContentOff;
  /** The cap of each kept field, in characters. */
  maxFieldChars: number;
}

export const CALL_CONTENT_OFF: CallContentSettings = { kept: false, off: 'store_prompts_in_spend_logs', maxFieldChars: CALL_CONTENT_FIELD_CHARS };

/** The settings as read from the two sections; a value that is not a boolean is a problem naming its setting (the start stops). */
export function readCallContentSettings(
  litellm: Record<string, unknown>,
  general: Record<string, unknown>,
  read: SettingReader,
  spendLogsOff: boolean,
  warnings: string[],
): CallContentSettings | undefined {
  const store = read.boolean(general['store_prompts_in_spend_logs'], 'general_settings.store_prompts_in_spend_logs');
  const noMessageLogging = read.boolean(litellm['turn_off_message_logging'], 'litellm_settings.turn_off_message_logging');
  if (store !== true) return undefined;
  if (noMessageLogging === true) {
    warnings.push('general_settings.store_prompts_in_spend_logs is overridden: litellm_settings.turn_off_message_logging is on, so no message content is kept');
    return { kept: false, off: 'turn_off_message_logging', maxFieldChars: CALL_CONTENT_FIELD_CHARS };
  }
  if (spendLogsOff) {
    warnings.push('general_settings.store_prompts_in_spend_logs changes nothing: general_settings.disable_spend_logs keeps no record of single calls');
    return { kept: false, off: 'disable_spend_logs', maxFieldChars: CALL_CONTENT_FIELD_CHARS };
  }
  return { kept: true, maxFieldChars: CALL_CONTENT_FIELD_CHARS };
}
