/** The config loader: loadSettings, its error, field schemas and the list of known settings. */
export { loadSettings, type LoadSettingsOptions } from './load-settings';
export { ConfigError, formatProblem, type ConfigProblem, type ConfigSource } from './config-error';
export { DEFAULT_CONFIG_FILE, CONFIG_PATH_SETTING } from './config-file';
export * from './fields';
export {
  KNOWN_SETTINGS,
  KNOWN_SETTING_NAMES,
  findKnownSetting,
  type KnownSetting,
  type SettingReader,
} from './known-settings';
export { settingsTable } from './settings-table';
