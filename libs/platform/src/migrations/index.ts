export * from './platform.migrations';
export * from './migrator';
