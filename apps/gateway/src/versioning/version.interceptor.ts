import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';
import { renderForVersion } from './versions';

/** Shapes every response for the API version the request asked for (header or key's pin). */
@Injectable()
export class VersionInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const version = context.switchToHttp().getRequest<FastifyRequest>().ctx?.api_version;
    return next.handle().pipe(map((body) => (version ? renderForVersion(body, version) : body)));
  }
}
