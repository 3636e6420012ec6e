/** A setting that is missing or wrong: the process refuses to start and says which. */
export class ConfigError extends Error {}
