// Must not compile (test/openapi/typed-client.e2e-spec.ts): no path /leadz, and a lead's
// full_name is a string.
import createClient from 'openapi-fetch';
import type { paths } from './api';

export const wrongPath = (api: ReturnType<typeof createClient<paths>>) => api.GET('/leadz');
export const wrongType = (api: ReturnType<typeof createClient<paths>>) => api.POST('/leads', { body: { full_name: 42 } });
