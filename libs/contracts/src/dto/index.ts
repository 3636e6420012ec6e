/** The request DTOs with their class-validator rules, for the gateway (index.ts exports them as types only). */
export * from './lead.dto';
export * from './company.dto';
export * from './pipeline.dto';
export * from './export.dto';
export * from './task.dto';
export * from './list.dto';
export * from './webhook.dto';
export * from './sequence.dto';
export * from './date-time';
export * from './pagination.dto';
export * from './validators';
