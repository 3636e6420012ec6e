import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';

/**
 * class-validator metadata of a contracts DTO → JSON Schema (draft 2020-12). A small converter
 * over `getMetadataStorage()` rather than a package: it knows the project's own decorators
 * (IsDateTime, IsCountryCode, IsCustomFields, IsFullName) and reads the same metadata the
 * gateway validates with, so the document cannot drift from the validation.
 *
 * Nested DTOs (`@ValidateNested()` with a class type) become components named after the class;
 * `register` is called for each so the caller can put them under `components.schemas`.
 */
export interface DtoSchemaOptions {
  /** Called with each nested DTO class met; returns the `$ref` to use for it. */
  register(dto: Function): JsonSchema;
  /** Query strings carry no null: leave it out of the types. */
  query?: boolean;
}

export type JsonSchema = Record<string, unknown>;

type Rule = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/** Custom decorators of libs/contracts that accept an absent value by themselves. */
const ACCEPTS_ABSENT = new Set(['isFullName']);

/** Describes one validator as schema keywords on the value (or on each item with `each`). */
function keywordsOf(rule: Rule): JsonSchema {
  const c = rule.constraints ?? [];
  switch (rule.name) {
    case 'isString': return { type: 'string' };
    case 'isNotEmpty': return { minLength: 1 };
    case 'maxLength': return { maxLength: c[0] };
    case 'minLength': return { minLength: c[0] };
    case 'length': return { minLength: c[0], ...(c[1] !== undefined ? { maxLength: c[1] } : {}) };
    case 'isIn': {
      const values = [...(c[0] as unknown[])];
      return { ...(values.every((v) => typeof v === 'string') ? { type: 'string' } : {}), enum: values };
    }
    case 'isEnum': return { enum: Object.values(c[0] as object) };
    case 'equals': return { const: c[0] };
    case 'isEmail': return { type: 'string', format: 'email' };
    case 'isUrl': return { type: 'string', format: 'uri' };
    case 'isUUID': return { type: 'string', format: 'uuid' };
    case 'isISO8601': case 'isDateString': case 'isDateTime': return { type: 'string', format: 'date-time' };
    case 'isCountryCode': case 'isISO31661Alpha2': return { type: 'string', pattern: '^[A-Za-z]{2}$', minLength: 2, maxLength: 2, description: 'ISO 3166-1 alpha-2 country code.' };
    case 'matches': {
      const pattern = c[0] instanceof RegExp ? c[0] : new RegExp(String(c[0]), c[1] ?? undefined);
      return pattern.flags.replace(/[gu]/g, '') === '' ? { type: 'string', pattern: pattern.source } : { type: 'string' };
    }
    case 'isInt': return { type: 'integer' };
    case 'isNumber': case 'isNumberString': return { type: 'number' };
    case 'isPositive': return { exclusiveMinimum: 0 };
    case 'min': return { minimum: c[0] };
    case 'max': return { maximum: c[0] };
    case 'isBoolean': return { type: 'boolean' };
    case 'isObject': case 'isNotEmptyObject': return { type: 'object' };
    case 'isArray': return { type: 'array' };
    case 'arrayMinSize': return { type: 'array', minItems: c[0] };
    case 'arrayMaxSize': return { type: 'array', maxItems: c[0] };
    case 'arrayUnique': return { type: 'array', uniqueItems: true };
    case 'isCustomFields':
      return {
        type: 'object',
        maxProperties: 100,
        propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,64}$' },
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
        description: 'Values keyed by custom field key: strings (up to 1000 characters), numbers or booleans.',
      };
    case 'isFullName': return { type: 'string' };
    default: return {};
  }
}

/** Merges keywords, keeping the first `type` seen (the most specific rule comes first). */
function merge(target: JsonSchema, keywords: JsonSchema): void {
  for (const [key, value] of Object.entries(keywords)) {
    if (value === undefined) continue;
    if (key === 'type' && target.type !== undefined) continue;
    if (key === 'description' && target.description) continue;
    target[key] = value;
  }
}

function messageOf(rule: Rule): string | undefined {
  if (rule.name !== 'isFullName') return undefined;
  return 'Required when first_name and last_name are empty.';
}

/**
 * JSON Schema of the body (or query) a DTO accepts. Unknown properties are refused by the
 * gateway (`forbidNonWhitelisted`), hence `additionalProperties: false`.
 */
export function dtoToJsonSchema(dto: Function, options: DtoSchemaOptions): JsonSchema {
  const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const byProperty = new Map<string, Rule[]>();
  for (const rule of rules) {
    if (rule.type === 'whitelistValidation') continue;
    const list = byProperty.get(rule.propertyName) ?? [];
    list.push(rule);
    byProperty.set(rule.propertyName, list);
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, list] of byProperty) {
    const value: JsonSchema = {};
    const items: JsonSchema = {};
    let conditional = false;
    let nullAllowed = false;
    let nested = false;
    const notes: string[] = [];
    // Rules apply from the last decorator written to the first: reverse for reading order.
    for (const rule of [...list].reverse()) {
      if (rule.type === 'conditionalValidation') {
        conditional = true;
        const condition = rule.constraints?.[0] as ((object: object, value: unknown) => boolean) | undefined;
        // IsOptional skips validation for null as well as undefined: the field is nullable.
        if (!options.query && typeof condition === 'function' && !condition({ [name]: null }, null)) nullAllowed = true;
        continue;
      }
      if (rule.type === 'nestedValidation') { nested = true; continue; }
      if (rule.type === 'isDefined') continue;
      const keywords = keywordsOf(rule);
      const note = messageOf(rule);
      if (note) notes.push(note);
      if (rule.each) merge(items, keywords);
      else merge(value, keywords);
      if (ACCEPTS_ABSENT.has(rule.name ?? '')) conditional = true;
    }
    if (nested) {
      const designType = Reflect.getMetadata('design:type', dto.prototype, name) as Function | undefined;
      const nestedType = designType && designType !== Array && designType !== Object ? designType : nestedTypeFromTransformer(dto, name);
      if (nestedType) {
        if (value.type === 'array' || designType === Array) Object.assign(items, options.register(nestedType));
        else { delete value.type; Object.assign(value, options.register(nestedType)); }
      }
    }
    if (Object.keys(items).length > 0) {
      value.type = 'array';
      value.items = items;
    }
    if (notes.length > 0) value.description = [value.description, ...notes].filter(Boolean).join(' ');
    properties[name] = nullAllowed ? orNull(value) : value;
    if (!conditional) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function orNull(schema: JsonSchema): JsonSchema {
  if (schema.$ref) return { oneOf: [schema, { type: 'null' }] };
  if (typeof schema.type === 'string') {
    return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
  }
  return schema.type === undefined ? schema : { ...schema };
}

/** `@Type(() => X)` of class-transformer, for arrays of nested DTOs. */
function nestedTypeFromTransformer(dto: Function, property: string): Function | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
      defaultMetadataStorage: { findTypeMetadata(target: Function, property: string): { typeFunction(): Function } | undefined };
    };
    return defaultMetadataStorage.findTypeMetadata(dto, property)?.typeFunction();
  } catch {
    return undefined;
  }
}
