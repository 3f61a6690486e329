/**
 * Ids the console may act on. A job's other keys are `<job key>:<suffix>` (`:lock`, `:logs`,
 * `:processed`, ...), so an id with a ':' would make the engine read or delete one of those as
 * if it were a job: the admin layer refuses such ids whatever route they came through.
 */
export function isPlainJobId(id: string): boolean {
  return id.length > 0 && !id.includes(':');
}
