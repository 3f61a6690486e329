/** Fixture: a module with no default export, which a sandbox cannot run. */
export const queue = 'nothing-here';
export function process() {
  return 'never called';
}
