import { RpcException } from '@nestjs/microservices';
import { DomainErrorPayload, ErrorCode } from '@app/contracts';

/** A failure the spec names; crosses NATS as `{code, message, param}`. */
export class DomainError extends RpcException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super({ code, message, ...(param ? { param } : {}) } satisfies DomainErrorPayload);
  }

  static invalid(param: string, message: string): DomainError {
    return new DomainError('invalid_request', message, param);
  }

  static notFound(resource: string, id: string, param?: string): DomainError {
    return new DomainError('not_found', `No such ${resource}: '${id}'`, param);
  }

  static conflict(message: string, param?: string): DomainError {
    return new DomainError('conflict', message, param);
  }
}
