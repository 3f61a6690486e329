/**
 * The admin layer's redaction is the engine's (engine/redaction/): the telemetry and the worker
 * runner redact failure text with the same rules, so the rules live outside the admin layer and
 * are re-exported here for the admin modules and `oxmq/admin`.
 */
export * from '../redaction';
