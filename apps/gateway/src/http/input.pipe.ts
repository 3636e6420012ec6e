import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error';
import { isContractDto, validateInput } from './validation';

/** Ids are at most this long: a longer path id names no object. */
export const ID_MAX_LENGTH = 255;

/** A path parameter that holds an id: `id` or `<something>_id`. */
const ID_PARAM = /(^|_)id$/;

/**
 * The gateway's one input pipe (registered once as APP_PIPE). A `@Body()` or `@Query()` typed
 * with a contracts DTO is checked against it (unknown fields, wrong types and broken rules are
 * 400 `invalid_request` naming the field) and the handler receives the DTO instance; a path id
 * longer than any id is 404 `not_found`, as any unknown id. Everything else passes untouched, at
 * the cost of a look-up: a handler that takes `unknown` checks its input itself.
 */
@Injectable()
export class InputPipe implements PipeTransform {
  /** Whether a class carries class-validator rules (a contracts DTO), by class. */
  private readonly dtos = new WeakMap<Function, boolean>();

  transform(value: unknown, { type, metatype, data }: ArgumentMetadata): unknown {
    if (type === 'param') {
      if (typeof value === 'string' && value.length > ID_MAX_LENGTH && data !== undefined && ID_PARAM.test(data)) {
        throw new ApiError('not_found', `No such object: '${value.slice(0, 40)}…'`, data);
      }
      return value;
    }
    if ((type === 'body' || type === 'query') && metatype && this.isDto(metatype)) {
      return validateInput(metatype as new () => object, value, type);
    }
    return value;
  }

  private isDto(metatype: Function): boolean {
    let known = this.dtos.get(metatype);
    if (known === undefined) {
      known = isContractDto(metatype);
      this.dtos.set(metatype, known);
    }
    return known;
  }
}
