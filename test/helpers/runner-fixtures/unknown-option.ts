/** Fixture: a misspelt option (`concurency`), which the runner must refuse, not ignore. */
export const queue = 'unknown-option';

export const options = { concurency: 2 };

export default async function neverRuns() {
  return null;
}
