/**
 * Request and response examples of the OpenAPI document, recorded from a real run of the mesh
 * (test/openapi/openapi-examples.e2e-spec.ts with OPENAPI_EXAMPLES_WRITE=1 writes examples.json;
 * `npm run openapi:examples`). Keyed `METHOD /path` as the document's operations.
 */
export interface RecordedExample {
  /**
   * Its place in the recording run: each request names only objects that answers recorded before
   * it hold (the order the Postman collection runs the requests in).
   */
  order?: number;
  /** The request as sent: path with its query string. */
  request: { path: string; body?: unknown };
  /** The answer: status, content type and body (text for CSV and HTML). */
  response: { status: number; type: string; body: unknown };
}

export type RecordedExamples = Record<string, RecordedExample>;

// A literal require, so that the gateway's image (tools/image/deps.ts) holds the file.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const RECORDED_EXAMPLES = require('./examples.json') as RecordedExamples;

export const EXAMPLE_NAME = 'recorded';

/**
 * Puts each recorded example on its operation: the request body on the request's media type,
 * the response body on the response of the recorded status. Examples of operations or statuses
 * the document does not have are left out (the examples test requires one for every operation).
 */
export function addRecordedExamples(paths: Record<string, Record<string, any>>, examples: RecordedExamples = RECORDED_EXAMPLES): void {
  for (const [key, example] of Object.entries(examples)) {
    const [method, path] = key.split(' ');
    const operation = paths[path]?.[method.toLowerCase()];
    if (!operation) continue;
    const summary = `${method} ${example.request.path} (recorded from a test run)`;
    const requestContent = operation.requestBody?.content as Record<string, any> | undefined;
    // Copies: the generator shares one content object between the statuses of an operation.
    if (requestContent && example.request.body !== undefined) {
      const type = requestContent['application/json'] ? 'application/json' : Object.keys(requestContent)[0];
      operation.requestBody = { ...operation.requestBody, content: { ...requestContent, [type]: { ...requestContent[type], examples: { [EXAMPLE_NAME]: { summary, value: example.request.body } } } } };
    }
    const status = String(example.response.status);
    const response = operation.responses?.[status];
    const media = response?.content?.[example.response.type];
    if (media) {
      const examples = { [EXAMPLE_NAME]: { summary: `${status}: ${summary}`, value: example.response.body } };
      operation.responses[status] = { ...response, content: { ...response.content, [example.response.type]: { ...media, examples } } };
    }
  }
}
