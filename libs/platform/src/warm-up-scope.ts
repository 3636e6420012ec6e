import { AsyncLocalStorage } from 'node:async_hooks';
import { RpcException } from '@nestjs/microservices';

export interface WarmUpScope {
  /** A unit of work of this warm-up request rolled back instead of committing. */
  rolledBack: boolean;
}

export const warmUpScope = new AsyncLocalStorage<WarmUpScope>();

/**
 * What a unit of work throws in a warm-up request once it has rolled its work back: an
 * RpcException, so Nest's RPC filter hands it back as it is instead of logging an internal error.
 */
export class WarmUpRollback extends RpcException {
  static readonly code = 'warm_up_rolled_back';

  constructor() {
    super({ code: WarmUpRollback.code, message: 'warm-up: rolled back' });
  }
}

/**
 * True inside a warm-up request: UnitOfWork rolls back instead of committing (and says so,
 * rolledBackForWarmUp), so a warm-up write changes nothing. Only this process's start-up sets it
 * (no request from outside can), and nothing else runs in its asynchronous context.
 */
export function inWarmUp(): boolean {
  return warmUpScope.getStore() !== undefined;
}

/** Called by UnitOfWork after rolling back a warm-up request's transaction. */
export function rolledBackForWarmUp(): WarmUpRollback {
  const current = warmUpScope.getStore();
  if (current) current.rolledBack = true;
  return new WarmUpRollback();
}
