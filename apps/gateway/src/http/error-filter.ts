import { maxHeaderSize } from 'node:http';
import { Duplex } from 'node:stream';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { ERROR_TYPE, ErrorBody, ErrorCode } from '@app/contracts';
import { connectionBroke, rootLogger, SERVICE_CONFIG } from '@app/platform';
import { GatewayConfig } from '../config';
import { ApiError } from './api-error';
import { requestLogFields } from './request-log';

function statusToCode(status: number): ErrorCode {
  if (status === 404) return 'not_found';
  if (status === 401) return 'authentication_failed';
  if (status === 403) return 'permission_denied';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'invalid_request';
  return 'internal_error';
}

/** Turns anything thrown into an ApiError; internals never reach the client. */
export function toApiError(err: unknown, request?: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404 && request) {
      return new ApiError('not_found', `Unrecognized request URL (${request.method} ${request.url.split('?')[0]})`);
    }
    return new ApiError(statusToCode(status), status >= 500 ? 'An internal error occurred; retry later' : err.message);
  }
  const fastifyError = err as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) {
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return ApiError.invalid(undefined, 'Request body is too large');
    return new ApiError(statusToCode(fastifyError.statusCode), fastifyError.message ?? 'Invalid request');
  }
  // the gateway's own database (keys, idempotency claims, rate limits) not answering: a failover
  if (connectionBroke(err)) return ApiError.unavailable('The database is not answering for the moment; retry after Retry-After seconds (with the same Idempotency-Key on POST)');
  return new ApiError('internal_error', 'An internal error occurred; retry later (with the same Idempotency-Key on POST)');
}

/** Answers with the spec's error object. */
export function sendApiError(reply: FastifyReply, error: ApiError, docsUrl: string): void {
  const body: ErrorBody = {
    error: {
      type: ERROR_TYPE[error.code],
      code: error.code,
      message: error.message,
      ...(error.param ? { param: error.param } : {}),
      doc_url: `${docsUrl}#${error.code}`,
    },
  };
  reply.status(error.status).headers(error.headers).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * Failures Fastify's router answers before any hook or filter runs (a path parameter longer than
 * maxParamLength, a request target that is not a path): the same error object and Request-Id.
 * Malformed percent-encoding never gets here: `routableUrl` escapes it before routing.
 */
export function frameworkErrorHandler(docsUrl: string) {
  return (err: { code?: string }, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('Request-Id', request.id);
    const error =
      err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('not_found', `Unrecognized request URL (${request.method} ${request.url.split('?')[0].slice(0, 80)}…)`)
        : ApiError.invalid(undefined, 'The request URL is malformed');
    sendApiError(reply, error, docsUrl);
  };
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (a request line and headers past
 * the server's `maxHeaderSize`, a request not received in time, bytes that are not HTTP): the
 * error object with a Request-Id, where Fastify would write a body of its own, then the connection
 * closes as Node's own answer does. Nothing was routed, so nothing is counted.
 */
export function clientErrorHandler(docsUrl: string, requestId: () => string) {
  return (err: { code?: string }, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const message =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? `The request line and headers together exceed ${maxHeaderSize} bytes`
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? 'The request was not received in time'
            : 'The request is not valid HTTP';
      const body = JSON.stringify({ error: { type: ERROR_TYPE.invalid_request, code: 'invalid_request', message, doc_url: `${docsUrl}#invalid_request` } } satisfies ErrorBody);
      socket.write(
        `HTTP/1.1 400 Bad Request\r\nRequest-Id: ${requestId()}\r\nContent-Type: application/json; charset=utf-8\r\n`
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  private readonly log = rootLogger('gateway');
  // the operator's NATS requests inherit this global filter: they are answered as every service answers them
  private readonly rpc = new BaseRpcExceptionFilter();
  constructor(@Inject(SERVICE_CONFIG) private readonly config: GatewayConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void | Observable<unknown> {
    if (host.getType() === 'rpc') return this.rpc.catch(exception, host);
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const error = toApiError(exception, request);
    if (error.status >= 500) {
      this.log.error({ ...requestLogFields(request), err: exception }, 'request failed');
    }
    sendApiError(reply, error, this.config.docsUrl);
  }
}
