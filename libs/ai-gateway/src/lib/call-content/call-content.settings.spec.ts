import { SettingReader } from '@arbor/config';
import { contentJson } from '../spend/spend-recorder';
import { readCallContentSettings } from './call-content.settings';

function read(litellm: Record<string, unknown>, general: Record<string, unknown>, spendLogsOff = false) {
  const problems: string[] = [];
  const warnings: string[] = [];
  const reader = new SettingReader((at, message) => problems.push(`${at}: ${message}`));
  return { settings: readCallContentSettings(litellm, general, reader, spendLogsOff, warnings), problems, warnings };
}

describe('general_settings.store_prompts_in_spend_logs', () => {
  it('is off unless set to true', () => {
    expect(read({}, {}).settings).toBeUndefined();
    expect(read({}, { store_prompts_in_spend_logs: false }).settings).toBeUndefined();
    expect(read({}, { store_prompts_in_spend_logs: true }).settings).toEqual({ kept: true, maxFieldChars: 16_384 });
  });

  it('names the setting when its value is not a boolean', () => {
    expect(read({}, { store_prompts_in_spend_logs: 'yes' }).problems).toEqual(['general_settings.store_prompts_in_spend_logs: must be true or false']);
    expect(read({ turn_off_message_logging: 1 }, {}).problems).toEqual(['litellm_settings.turn_off_message_logging: must be true or false']);
  });

  it('gives way to turn_off_message_logging and to disable_spend_logs, with a start-up warning', () => {
    const quiet = read({ turn_off_message_logging: true }, { store_prompts_in_spend_logs: true });
    expect(quiet.settings).toEqual({ kept: false, off: 'turn_off_message_logging', maxFieldChars: 16_384 });
    expect(quiet.warnings).toEqual([expect.stringContaining('turn_off_message_logging is on')]);
    expect(read({}, { store_prompts_in_spend_logs: true }, true).settings).toMatchObject({ kept: false, off: 'disable_spend_logs' });
  });
});

describe('contentJson', () => {
  it('drops the NUL characters jsonb cannot hold, and only them', () => {
    const content = (document: Record<string, unknown>) => ({ pending: false, read: () => document });
    expect(contentJson(content({ text: 'a\u0000b\u0000\u0000c' }))).toBe('{"text":"abc"}');
    // A backslash followed by the text u0000 is not a NUL.
    expect(contentJson(content({ text: '\\u0000' }))).toBe('{"text":"\\\\u0000"}');
    expect(contentJson(undefined)).toBeNull();
  });
});
