import { registerDecorator, ValidationOptions } from 'class-validator';
import { parseDateTime } from '../date-time';

export { parseDateTime } from '../date-time';

/** An ISO 8601 date-time with a time zone that names a real instant (see parseDateTime). */
export function IsDateTime(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isDateTime',
      target: object.constructor,
      propertyName,
      options: { message: `${propertyName} must be an ISO 8601 date-time with a time zone, such as 2026-10-01T09:00:00Z`, ...options },
      validator: { validate: (value: unknown) => parseDateTime(value) !== null },
    });
}
