/** Links to the job and flows pages (plain functions: usable from server and client code). */
export function jobPageHref(prefix: string, name: string, id: string): string {
  return `/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(name)}/jobs/${encodeURIComponent(id)}`;
}

export function flowPageHref(prefix: string, queue: string, id: string): string {
  return `/flows/${encodeURIComponent(prefix)}/${encodeURIComponent(queue)}/${encodeURIComponent(id)}`;
}
