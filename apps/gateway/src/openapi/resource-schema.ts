import 'reflect-metadata';
import { apiDocs } from '@app/contracts/api-docs';
import type { JsonSchema } from './dto-schema';

// loads @nestjs/swagger and applies the contracts' recorded @ApiProperty / @ApiSchema calls (api-docs.ts)
const { DECORATORS } = apiDocs();

/**
 * The JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) of a response class of libs/contracts,
 * read from its `@ApiProperty` metadata, the way @nestjs/swagger's ModelPropertiesAccessor and
 * SchemaObjectFactory read it. Written here rather than taken from SchemaObjectFactory because
 * that one speaks OpenAPI 3.0 (`nullable`, no `const`) and orders keywords its own way; the
 * document keeps its 3.1 form (docs/decisions.md).
 *
 * Classes in `components` become `$ref`s; any other class a property names is written inline.
 */

/** Keywords in the order the document writes them. */
const KEYWORDS = [
  'type', 'enum', 'items', 'description', 'format', 'pattern', 'maxLength', 'minimum', 'maximum', 'const', 'examples',
  'properties', 'required', 'additionalProperties', 'anyOf', 'oneOf', 'allOf',
] as const;

type PropertyMetadata = Record<string, unknown> & { type?: unknown; isArray?: boolean; nullable?: boolean; required?: boolean; enum?: unknown[] };

const SCALARS = new Map<unknown, string>([[String, 'string'], [Number, 'number'], [Boolean, 'boolean'], [Object, 'object'], [Array, 'array']]);

const ordered = (schema: JsonSchema): JsonSchema =>
  Object.fromEntries(KEYWORDS.filter((k) => schema[k] !== undefined).map((k) => [k, schema[k]]));

/** The component name of a class: `@ApiSchema({ name })`, else the class name. */
export function schemaName(model: Function): string {
  const options = (Reflect.getOwnMetadata(DECORATORS.API_SCHEMA, model) ?? []) as { name?: string }[];
  return options.map((o) => o.name).filter(Boolean).at(-1) ?? model.name;
}

const schemaDescription = (model: Function): string | undefined =>
  ((Reflect.getOwnMetadata(DECORATORS.API_SCHEMA, model) ?? []) as { description?: string }[]).map((o) => o.description).filter(Boolean).at(-1);

/** Property names in declaration order, inherited ones first (what ModelPropertiesAccessor.getModelProperties returns). */
function modelProperties(prototype: object): string[] {
  const keys = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, prototype) ?? []) as string[];
  return keys.filter((key) => key.startsWith(':')).map((key) => key.slice(1));
}

/** `#/components/schemas/<name>`: where a component of the document is referred to by its name. */
export const componentRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const isClass = (type: unknown): type is Function => typeof type === 'function' && !SCALARS.has(type);

export class ResourceSchemas {
  constructor(private readonly components: Function[]) {}

  /** `#/components/schemas/<name>` of a component class. */
  ref(model: Function): JsonSchema {
    return componentRef(schemaName(model));
  }

  /** The component schema of one class: an object, or `allOf` its component parent and its own properties. */
  component(model: Function): JsonSchema {
    const parent = Object.getPrototypeOf(model) as Function;
    if (this.components.includes(parent)) {
      const own = modelProperties(model.prototype).filter((key) => Reflect.getOwnMetadata(DECORATORS.API_MODEL_PROPERTIES, model.prototype, key));
      return { allOf: [this.ref(parent), this.object(model, own)] };
    }
    return this.object(model, modelProperties(model.prototype), schemaDescription(model));
  }

  /** A class's schema written in place (`$ref` for a component). */
  private use(model: Function): JsonSchema {
    return this.components.includes(model) ? this.ref(model) : this.component(model);
  }

  private object(model: Function, keys: string[], description?: string): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const key of keys) {
      const metadata = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, model.prototype, key) as PropertyMetadata;
      properties[key] = this.property(metadata);
      if (metadata.required !== false) required.push(key);
    }
    return ordered({ type: 'object', description, properties, required });
  }

  private property(metadata: PropertyMetadata): JsonSchema {
    const { isArray, nullable, description, ...rest } = metadata;
    if (rest.anyOf) return ordered({ description, anyOf: rest.anyOf });
    const schema = isArray
      ? ordered({ type: 'array', items: this.value(rest), description })
      : this.value({ ...rest, description });
    return nullable ? orNull(schema) : schema;
  }

  private value(metadata: PropertyMetadata): JsonSchema {
    const { type, enum: values, required: _required, name: _name, ...keywords } = metadata;
    if (isClass(type)) return this.use(type);
    const constant = values?.length === 1 ? values[0] : undefined;
    return ordered({
      ...keywords,
      type: typeof type === 'string' ? type : SCALARS.get(type),
      ...(constant !== undefined ? { const: constant } : values ? { enum: [...values] } : {}),
    });
  }
}

function orNull(schema: JsonSchema): JsonSchema {
  if (schema.$ref) return { oneOf: [schema, { type: 'null' }] };
  return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
}
