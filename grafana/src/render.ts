/**
 * The dashboards as the files grafana/build.ts writes: JSON formatted by the repository's
 * Prettier settings, so that the committed files pass `prettier --check` and a regenerated file
 * differs from the committed one only where the dashboard changed.
 */
import path from 'node:path';
import * as prettier from 'prettier';
import { buildDashboards } from './index';

/** File name → content, for the files in `dashboardsDir` (used to find the Prettier config). */
export async function renderDashboardFiles(dashboardsDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const built of buildDashboards()) {
    const filepath = path.join(dashboardsDir, built.file);
    const options = (await prettier.resolveConfig(filepath)) ?? {};
    const text = await prettier.format(JSON.stringify(built.dashboard), {
      ...options,
      filepath,
      parser: 'json',
    });
    files.set(built.file, text);
  }
  return files;
}
