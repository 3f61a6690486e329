/** The queue integrity checker (docs/integrity.md). */
export {
  checkQueueIntegrity,
  checkQueueIntegrityToEnd,
  type IntegrityOptions,
  type IntegrityQueue,
} from './check-queue-integrity';
export {
  emptyReport,
  INVARIANTS,
  MAX_SAMPLES,
  mergeReports,
  type IntegrityReport,
  type Invariant,
} from './invariants';
export { INTEGRITY_LIMITS } from './limits';
export {
  repairIntegrityFindings,
  SAFE_REPAIRS,
  type RepairableInvariant,
  type RepairResult,
} from './repair';
export {
  repairQueueIntegrityStep,
  repairQueueIntegrityToEnd,
  type RepairStep,
} from './repair-walk';
