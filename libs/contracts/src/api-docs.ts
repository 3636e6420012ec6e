import type { ApiPropertyOptions, ApiSchemaOptions } from '@nestjs/swagger';

type Swagger = typeof import('@nestjs/swagger');

/**
 * `@ApiProperty`, `@ApiPropertyOptional` and `@ApiSchema` of @nestjs/swagger, applied when the API's
 * document is first needed rather than when a class is declared. The resource and error classes
 * are the one definition of what the API returns, and every service loads them; only the gateway
 * reads their document metadata (apps/gateway/src/openapi). Loading @nestjs/swagger costs a
 * service's start about 0.1-0.15 s of CPU (2026-11-29, Node 24), paid at every start and restart
 * of five services that never use it. Each decorator here records its call; `apiDocs()` loads
 * @nestjs/swagger and applies the recorded calls in the order they were made (the order the
 * classes were declared, which is the order @nestjs/swagger's metadata keeps), and from then on
 * applies each new one at once. The metadata written is @nestjs/swagger's own, written by its own
 * decorators: only the moment differs.
 */
let swagger: Swagger | undefined;
const pending: ((s: Swagger) => void)[] = [];

function whenDocumented(apply: (s: Swagger) => void): void {
  if (swagger) apply(swagger);
  else pending.push(apply);
}

/** @nestjs/swagger, with every decorator recorded so far applied (the gateway's document reads it). */
export function apiDocs(): Swagger {
  if (!swagger) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require('@nestjs/swagger') as Swagger;
    for (const apply of pending.splice(0)) apply(loaded);
    swagger = loaded;
  }
  return swagger;
}

/** Options, or a function that makes them when the decorator is applied (for options that call `schemaPath`). */
type Deferred<T> = T | (() => T);
const made = <T>(options: Deferred<T> | undefined): T | undefined => (typeof options === 'function' ? (options as () => T)() : options);

export const ApiProperty = (options?: Deferred<ApiPropertyOptions>): PropertyDecorator => (target, key) =>
  whenDocumented((s) => s.ApiProperty(made(options))(target, key));

export const ApiPropertyOptional = (options?: Deferred<ApiPropertyOptions>): PropertyDecorator => (target, key) =>
  whenDocumented((s) => s.ApiPropertyOptional(made(options))(target, key));

export const ApiSchema = (options?: ApiSchemaOptions): ClassDecorator => (target) =>
  whenDocumented((s) => s.ApiSchema(options)(target));

/** `getSchemaPath` of @nestjs/swagger: call it only inside deferred options (it loads the package). */
export const schemaPath = (model: string | Function): string => apiDocs().getSchemaPath(model);
