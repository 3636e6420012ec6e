export const PG_POOL = Symbol('PG_POOL');
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');
export const DEAD_LETTERS = Symbol('DEAD_LETTERS');
