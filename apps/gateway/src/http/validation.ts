import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';
import { ApiError } from './api-error';

function firstProblem(errors: ValidationError[], path = ''): { param: string; message: string } {
  const error = errors[0];
  const param = path ? `${path}.${error.property}` : error.property;
  if (error.constraints) {
    if (error.constraints.whitelistValidation) return { param, message: `Unknown parameter: ${param}` };
    return { param, message: Object.values(error.constraints)[0] };
  }
  return firstProblem(error.children ?? [], param);
}

/**
 * class-transformer silently drops these keys at every depth, so neither the whitelist check
 * nor the DTO would ever see them: a body `{"full_name": "x", "__proto__": {}}` would pass and
 * `custom_fields: {"constructor": "x"}` would lose the field. They are refused instead.
 */
const DROPPED_KEYS = new Set(['__proto__', 'constructor']);

function findDroppedKey(value: unknown, path = ''): string | null {
  if (!value || typeof value !== 'object') return null;
  for (const key of Object.keys(value)) {
    const param = path ? `${path}.${key}` : key;
    if (DROPPED_KEYS.has(key)) return param;
    const nested = findDroppedKey((value as Record<string, unknown>)[key], param);
    if (nested) return nested;
  }
  return null;
}

/**
 * Checks a body or query against its contract DTO: unknown fields, wrong types and broken rules
 * are 400 `invalid_request` naming the field.
 */
export function validateInput<T extends object>(dto: new () => T, input: unknown, where: 'body' | 'query'): T {
  if (input === undefined || input === null) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw ApiError.invalid(undefined, `The request ${where} must be a JSON object`);
  }
  const dropped = findDroppedKey(input);
  if (dropped) throw ApiError.invalid(dropped, `Unknown parameter: ${dropped}`);
  const instance = plainToInstance(dto, input, { enableImplicitConversion: false });
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length > 0) {
    const { param, message } = firstProblem(errors);
    throw ApiError.invalid(param, message);
  }
  return instance;
}

/** Whether a class carries class-validator rules: a contracts DTO that validateInput can check input against. */
export function isContractDto(type: Function): boolean {
  return getMetadataStorage().getTargetValidationMetadatas(type, '', true, false).length > 0;
}
