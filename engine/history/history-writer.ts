/**
 * The Redis history writer, where the admin's backlog sampler (engine/admin/backlog-sampler.ts,
 * Redis by nature) finds it; a worker writes through its storage's TimingHistoryStore.
 */
export { writeHistory, type HistoryEntry } from '../backend/redis/history-store';
