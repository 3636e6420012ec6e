import { isApiRequest } from './pipeline';

describe('isApiRequest: what the gateway authenticates and counts', () => {
  it.each([
    ['a route of the API, as spelled', '/api/v1/optout', '/api/v1/optout'],
    ['a route of the API, spelled with escapes', '/api/v1/optout', '/%61pi/v1/%6Fptout'],
    ['a keyed route with parameters, spelled with escapes', '/api/v1/leads/:id', '/api/v1/le%61ds/lead_1?x=1'],
    ['no route, under the API', undefined, '/api/v1/no-such-route'],
    ['no route, under the API, spelled with escapes', undefined, '/%61pi/v1/no-such-route'],
    ['no route, the API root with a query', undefined, '/api/v1?x=1'],
    ['no route, a slash spelled as an escape', undefined, '/api%2Fv1/leads'],
  ])('%s: yes', (_label, route, url) => {
    expect(isApiRequest(route, url)).toBe(true);
  });

  it.each([
    ['the health route', '/health/live', '/health/live'],
    ['the health route, spelled with escapes', '/health/live', '/%68ealth/live'],
    ['the metrics route', '/metrics', '/metrics'],
    ['no route, outside the API', undefined, '/favicon.ico'],
    ['no route, a prefix that is not the API\'s', undefined, '/api/v10/leads'],
    ['no route, a path that does not decode', undefined, '/%E0%A4%A'],
  ])('%s: no', (_label, route, url) => {
    expect(isApiRequest(route, url)).toBe(false);
  });
});
