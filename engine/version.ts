import { version } from './package.json';

/**
 * OxMQ's version, from the package's own manifest: read from source, and written into the
 * built package by the bundler. Used in script names, meta.version and worker heartbeats.
 */
export const OXMQ_VERSION: string = version;

/**
 * The library name written to a queue's meta `version` field (`<libName>:<version>`). It names
 * OxMQ and starts with `bullmq`, as libraries of the bullmq family name themselves (bullmq-pro):
 * Bull-Board's BullMQAdapter takes a queue whose version starts with `bullmq` and refuses any
 * other, so this is what lets a board built for bullmq take an OxMQ Queue unchanged. Nothing in
 * bullmq or Bull-Board reads more of it than that prefix.
 */
export const OXMQ_LIB_NAME = 'bullmq-oxmq';
