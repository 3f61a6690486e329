/**
 * Signing in through the login form as a user would, for the e2e specs: the page lands on the
 * overview once the session is set.
 */
import type { Page } from 'playwright-core';

export async function signIn(
  page: Page,
  baseUrl: string,
  user: { username: string; password: string },
): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Queues', exact: true }).waitFor();
}
