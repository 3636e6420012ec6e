import { ValidationOptions, registerDecorator, isISO31661Alpha2 } from 'class-validator';

/** ISO 3166-1 alpha-2, either case (stored upper-case). */
export function IsCountryCode(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isCountryCode',
      target: object.constructor,
      propertyName,
      options: { message: `${propertyName} must be an ISO 3166-1 alpha-2 country code`, ...options },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && value.length === 2 && isISO31661Alpha2(value.toUpperCase()),
      },
    });
}

/** A flat object whose values are strings (up to 1000 characters), numbers, booleans or, when allowed, null. */
export function IsCustomFields(allowNull: boolean, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isCustomFields',
      target: object.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be an object of at most 100 keys (up to 64 characters each) whose values are strings, numbers or booleans${allowNull ? ' (null clears a key)' : ''}`,
        ...options,
      },
      validator: {
        validate: (value: unknown) => {
          if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
          const entries = Object.entries(value as Record<string, unknown>);
          if (entries.length > 100) return false;
          return entries.every(
            ([key, v]) =>
              /^[A-Za-z0-9_.-]{1,64}$/.test(key) &&
              ((typeof v === 'string' && v.length <= 1000) ||
                (typeof v === 'number' && Number.isFinite(v)) ||
                typeof v === 'boolean' ||
                (allowNull && v === null)),
          );
        },
      },
    });
}

/** Present means it must pass the other rules; null is rejected (the field is not nullable). */
export const NOT_NULL_WHEN_PRESENT = (_: unknown, value: unknown) => value !== undefined;

const hasText = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

/**
 * `full_name` of a new lead: when sent, a string of at most `maxLength` characters; required (not
 * blank) when neither `first_name` nor `last_name` has text. The names may be of any type here:
 * their own rules report them.
 */
export function IsFullName(maxLength: number, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isFullName',
      target: object.constructor,
      propertyName,
      options: {
        message: (args) => {
          if (typeof args.value === 'string' && args.value.length > maxLength) {
            return `${propertyName} must be at most ${maxLength} characters`;
          }
          if (args.value !== undefined && typeof args.value !== 'string') return `${propertyName} must be a string`;
          return `${propertyName} is required when first_name and last_name are empty`;
        },
        ...options,
      },
      validator: {
        validate: (value: unknown, args) => {
          const names = args?.object as { first_name?: unknown; last_name?: unknown };
          const required = !hasText(names?.first_name) && !hasText(names?.last_name);
          if (value === undefined) return !required;
          if (typeof value !== 'string' || value.length > maxLength) return false;
          return !required || hasText(value);
        },
      },
    });
}
