import { INestApplication } from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { rpcSubjectOf } from './rpc-context';

/** A request-reply handler called without Nest's pipeline: the controller's method, bound to it. */
export type DirectRoute = (data: unknown, context: unknown) => unknown;

const ENHANCERS = [GUARDS_METADATA, PIPES_METADATA, INTERCEPTORS_METADATA, EXCEPTION_FILTERS_METADATA];

/** The app's global enhancers, each of which would run in Nest's pipeline for every handler. */
const GLOBAL_ENHANCERS = [
  'getGlobalFilters', 'getGlobalPipes', 'getGlobalInterceptors', 'getGlobalGuards',
  'getGlobalRequestFilters', 'getGlobalRequestPipes', 'getGlobalRequestInterceptors', 'getGlobalRequestGuards',
] as const;
type AppConfig = Partial<Record<(typeof GLOBAL_ENHANCERS)[number] | 'getGlobalPreRequestHooks', () => unknown[]>>;

/**
 * The @Rpc and @PublicRpc handlers Nest's request pipeline has nothing to add to, by subject:
 * no guard, pipe, interceptor or exception filter on the method, its controller or the app (the
 * services declare none; the gateway's global error filter keeps its handlers on Nest's path),
 * and a controller of the default scope (one instance). Nest's pipeline for such a handler is
 * twelve-odd promises that each resolve to the argument they were given (pipes of no pipes,
 * interceptors of none, a guard check of none), and on Node 20 every promise of a process pays
 * the AsyncLocalStorage hook. The server calls these directly and hands a failure to Nest's
 * exception handler, as Nest's pipeline would (see CoalescingServerNats.handleMessage).
 * Anything this cannot see through (a newer Nest without the config it reads) gives no routes.
 */
export function directRpcRoutes(app: INestApplication): Map<string, DirectRoute> {
  const routes = new Map<string, DirectRoute>();
  const config = (app as unknown as { config?: AppConfig }).config;
  // a getter this Nest lacks counts as not empty (no routes); pre-request hooks are newer than the rest
  if (!config || GLOBAL_ENHANCERS.some((name) => config[name]?.().length !== 0)) return routes;
  if ((config.getGlobalPreRequestHooks?.().length ?? 0) > 0) return routes;
  const enhanced = (target: object) => ENHANCERS.some((key) => (Reflect.getMetadata(key, target) as unknown[] | undefined)?.length);
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance || !wrapper.isDependencyTreeStatic() || wrapper.isTransient || enhanced(instance.constructor)) continue;
      for (let proto = Object.getPrototypeOf(instance) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
        for (const key of Object.getOwnPropertyNames(proto)) {
          const method = Object.getOwnPropertyDescriptor(proto, key)?.value as ((...args: unknown[]) => unknown) | undefined;
          const subject = rpcSubjectOf(method);
          if (!method || !subject || routes.has(subject) || enhanced(method)) continue;
          routes.set(subject, method.bind(instance) as DirectRoute);
        }
      }
    }
  }
  return routes;
}
