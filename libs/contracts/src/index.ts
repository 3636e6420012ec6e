export * from './enums';
export * from './ids';
export * from './versions';
export * from './errors';
export * from './subjects';
export * from './events';
export * from './context';
export * from './resources/lead';
export * from './resources/company';
export * from './resources/pipeline';
export * from './resources/export';
export * from './resources/task';
export * from './resources/list';
export * from './resources/webhook';
export * from './resources/sequence';
export * from './resources/credits';
export * from './resources/search';
export * from './resources/workspace';
// The request DTOs (dto/) carry class-validator's decorators, which only the gateway reads: their
// classes are exported here as types only, so a service's start does not load class-validator (the
// gateway imports the classes from '@app/contracts/dto'; test/seams/contracts-dto.spec.ts keeps it
// so: a class imported from here as a type is `Object` in decorator metadata, and would not be
// validated). The limits and parseDateTime that services use are values, from limits.ts and date-time.ts.
export * from './limits';
export * from './date-time';
export type * from './dto/lead.dto';
export type * from './dto/company.dto';
export type * from './dto/pipeline.dto';
export type * from './dto/export.dto';
export type * from './dto/task.dto';
export * from './dto/list.dto';
export type * from './dto/webhook.dto';
export type * from './dto/sequence.dto';
export type * from './dto/date-time';
export type * from './dto/pagination.dto';
export type * from './dto/validators';
export * from './nats-flows';
export * from './resources/entity-input';
