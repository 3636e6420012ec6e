import { Span } from '@opentelemetry/api';
import { RequestContext } from '@app/contracts';

/** The server span of each request, found from its context when a service is called. */
export const requestSpans = new WeakMap<RequestContext, Span>();
