/** The settings table of docs/configuration.md, written from known-settings.ts so the two cannot drift. */
import { KNOWN_SETTINGS, type SettingReader } from './known-settings';

/** A Markdown table (Variable | Default | Read by | Meaning) of every known setting, or of those `reader` reads. */
export function settingsTable(reader?: SettingReader): string {
  const rows = KNOWN_SETTINGS.filter((setting) => !reader || setting.readBy.includes(reader)).map(
    (setting) => [`\`${setting.name}\``, setting.default, setting.readBy.join(', '), setting.doc],
  );
  const lines = [
    ['Variable', 'Default', 'Read by', 'Meaning'],
    ['---', '---', '---', '---'],
    ...rows,
  ].map((cells) => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`);
  return `${lines.join('\n')}\n`;
}
