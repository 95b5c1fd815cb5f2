import { EMPTY_SETTINGS, newKeySettingsOf, settingsOf } from './key-settings';

describe('the key form as the admin API takes it', () => {
  it('leaves the name out of a new key when the field is empty or blank', () => {
    expect(newKeySettingsOf(EMPTY_SETTINGS)).not.toHaveProperty('key_alias');
    expect(newKeySettingsOf({ ...EMPTY_SETTINGS, keyAlias: '   ' })).not.toHaveProperty('key_alias');
    expect(newKeySettingsOf({ ...EMPTY_SETTINGS, keyAlias: ' search team ' })).toMatchObject({ key_alias: 'search team' });
  });

  it('clears the name of an existing key when the field is emptied', () => {
    expect(settingsOf(EMPTY_SETTINGS)).toMatchObject({ key_alias: null, aliases: [], max_budget: null, rpm_limit: null });
  });
});
