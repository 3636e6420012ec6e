import { ApiProperty } from '../api-docs';

/**
 * `@ApiProperty` shorthands for the shapes every resource repeats. The resource classes are the
 * one definition of what the API returns: the services type their renderers with them and the
 * gateway's OpenAPI document reads their schemas from this metadata.
 */

/** An opaque prefixed identifier. */
export const IdProperty = (prefix: string): PropertyDecorator =>
  ApiProperty({
    type: 'string',
    description: `Identifier, prefix \`${prefix}\`; opaque, up to 255 characters.`,
    maxLength: 255,
    examples: [`${prefix}2x8Kq3vNw9`],
  });

/** A constant such as `object: 'lead'`: a one-value enum, which the document writes as `const`. */
export const ConstProperty = (value: string | number | boolean, description?: string, options: { required?: boolean } = {}): PropertyDecorator =>
  ApiProperty({ type: typeof value === 'number' ? 'integer' : (typeof value as 'string' | 'boolean'), enum: [value], description, ...options });

/** `livemode` of every resource a key made. */
export const LivemodeProperty = (): PropertyDecorator => ApiProperty({ type: 'boolean', description: 'False when produced by a test key.' });

/** A millisecond ISO 8601 timestamp. */
export const DateTimeProperty = (description?: string, options: { nullable?: boolean; required?: boolean } = {}): PropertyDecorator =>
  ApiProperty({ type: 'string', description, format: 'date-time', ...options });
