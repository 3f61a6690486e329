/** OxMQ's version; kept equal to package.json by a test. Used in script names and meta.version. */
export const OXMQ_VERSION = '0.1.0';

/** The library name written to a queue's meta `version` field (`<libName>:<version>`). */
export const OXMQ_LIB_NAME = 'oxmq';
