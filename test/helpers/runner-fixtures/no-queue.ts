/** Fixture: a processor without its `queue` export. */
export default async function neverRuns() {
  return null;
}
