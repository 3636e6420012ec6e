import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '@app/contracts/error-codes';
import { meshHookTimeoutMs, TestMesh } from '../../harness';

/**
 * Spec, Errors: every failure is one error object, every response carries Request-Id, bad input
 * is never a 500. Seeded random bad requests over every route the gateway documents (its
 * /openapi.json, which the OpenAPI coverage test holds equal to the routes it serves): bad path
 * ids, query parameters and bodies (NUL bytes, unpaired surrogates, malformed percent-encoding,
 * wrong types, huge values, unknown fields, broken JSON), with and without keys. FUZZ_SEED and
 * FUZZ_REQUESTS replay or widen a run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 14);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const CONCURRENCY = 12;

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BAD_STRINGS = [
  '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800', '', ' ', 'x'.repeat(5000), '\u{1F4A5}', '%00', "'; DROP TABLE leads; --",
  '{"a":1}', '../../etc/passwd', '-1', '0', '1e309', 'NaN', 'null', 'true', '2026-13-45T25:61:61Z', '99999999999999999999999',
  '\\', '\n\r\t', '<script>alert(1)</script>', '\u202e', 'ws_', 'lead_', 'https://169.254.169.254/', '*', 'live', 'test',
];
const BAD_VALUES: unknown[] = [
  null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, [], {}, [null], [1, 2], { a: { b: { c: [] } } }, ['\u0000'], { '\u0000': 1 },
  Array.from({ length: 600 }, (_, i) => `id_${i}`), ...BAD_STRINGS,
];
/** Path segments as sent on the wire: raw percent-encoding, good or bad. */
const BAD_SEGMENTS = [
  '%00', 'lead_%00', 'x%00y', '%zz', '%', '%4', '%ff', '%ED%A0%80', '%C0%80', 'x'.repeat(300), 'x'.repeat(600), '%2F', '..', '%20',
  '%F0%9F%92%A5', "'", '%22', '*', '%3F', 'null', '0', 'lead_0000000000000000000000', 'co_%00', 'we_x', '%E2%80%AE',
];
const UNKNOWN_NAMES = ['x', 'expand', '__proto__', 'constructor', 'limit[]', 'filters', 'a%00b', '%zz', ''];

/** encodeURIComponent, or the raw bytes of an unpaired surrogate (which it refuses): bad bytes stay bad. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...value].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('');
  }
}

interface Operation {
  method: string;
  path: string;
  query: string[];
  body: string[];
  /** Pages meant for people (the opt-out portal, unsubscribe) document their errors as HTML. */
  htmlErrors: boolean;
  /** Takes an HTML form post (and answers a form with a page). */
  takesForm: boolean;
  /** Answers a script file (the reference page's renderer): a third party's code, not an answer of ours. */
  servesScript: boolean;
}

interface Failure {
  route: string;
  request: string;
  status: number;
  problem: string;
  text: string;
}

describe('fuzz: seeded bad requests over every route (e2e)', () => {
  let mesh: TestMesh;
  let keys: { live: string; test: string };
  let operations: Operation[];

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm'], { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '1000000' });
    // one at a time: six services starting at once on a busy machine outrun the readiness wait
    for (const service of ['search', 'sequences', 'billing', 'webhooks'] as const) await mesh.startApp(service);
    const ws = await mesh.workspace();
    keys = { live: ws.key, test: (await mesh.key(ws.workspace.id, 'test')).key };
    const doc: any = await (await fetch(`${mesh.baseUrl}/openapi.json`)).json();
    const resolve = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
    operations = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops).map(([method, op]) => {
        const bodySchema = resolve(op.requestBody?.content?.['application/json']?.schema);
        const properties = { ...(bodySchema?.properties ?? {}), ...Object.assign({}, ...(bodySchema?.allOf ?? []).map((s: any) => resolve(s)?.properties ?? {})) };
        return {
          method: method.toUpperCase(),
          path,
          query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
          body: Object.keys(properties),
          htmlErrors: Object.entries<any>(op.responses).some(([status, r]) => status >= '400' && r.content?.['text/html']),
          takesForm: Boolean(op.requestBody?.content?.['application/x-www-form-urlencoded']),
          servesScript: Boolean(op.responses['200']?.content?.['text/javascript']),
        };
      }),
    );
  }, meshHookTimeoutMs(6));
  afterAll(() => mesh?.close());

  it('never answers 5xx, never shows a stack trace, always one error format and a Request-Id', async () => {
    expect(operations.length).toBeGreaterThan(20);
    const random = prng(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const chance = (p: number) => random() < p;

    const build = () => {
      const op = pick(operations);
      const path = op.path.replace(/\{[^}]+\}/g, () => (chance(0.8) ? pick(BAD_SEGMENTS) : encode(String(pick(BAD_STRINGS)))));
      const query: string[] = [];
      const names = [...op.query, ...(chance(0.3) ? [pick(UNKNOWN_NAMES)] : [])];
      for (const name of names) {
        if (!chance(0.5)) continue;
        const value = pick(BAD_VALUES);
        const values = Array.isArray(value) && chance(0.5) ? value.slice(0, 3) : [value];
        for (const v of values) query.push(`${name.includes('%') ? name : encode(name)}=${chance(0.15) ? pick(BAD_SEGMENTS) : encode(typeof v === 'string' ? v : JSON.stringify(v) ?? '')}`);
      }
      let body: string | undefined;
      let contentType: string | undefined = 'application/json';
      if (['POST', 'PUT', 'PATCH'].includes(op.method)) {
        const roll = random();
        if (roll < 0.08) body = pick(['{"a":', '{"a": 1,}', '[', '\u0000', '{"full_name": "x"}{', 'nul\u0000l', '{"a": "\\ud800"']);
        else if (roll < 0.13) body = JSON.stringify(pick(BAD_VALUES));
        else if (roll < 0.17) {
          body = 'a=b';
          contentType = pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', undefined]);
        } else {
          const fields: Record<string, unknown> = {};
          for (const name of op.body) if (chance(0.6)) fields[name] = pick(BAD_VALUES);
          if (chance(0.2)) fields[pick(UNKNOWN_NAMES.filter((n) => !n.includes('%')))] = pick(BAD_VALUES);
          body = JSON.stringify(fields);
        }
      }
      const auth = random();
      const key = auth < 0.8 ? keys.live : auth < 0.9 ? keys.test : auth < 0.95 ? undefined : 'svc_live_\u00e9nope';
      return { op, method: op.method, url: `${path}${query.length ? `?${query.join('&')}` : ''}`, body, contentType, key };
    };

    const failures: Failure[] = [];
    const statuses = new Map<number, number>();
    const codes = new Set<string>(Object.values(ERROR_CODES));
    const started = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        next++;
        const req = build();
        const headers: Record<string, string> = {};
        if (req.key) headers.authorization = `Bearer ${req.key}`;
        if (req.body !== undefined && req.contentType) headers['content-type'] = req.contentType;
        const label = `${req.method} ${req.url.slice(0, 160)} ${req.body?.slice(0, 120) ?? ''}`;
        let response: Response;
        try {
          response = await fetch(`${mesh.baseUrl}${req.url}`, { method: req.method, headers, body: req.body });
        } catch (err) {
          failures.push({ route: `${req.method} ${req.op.path}`, request: label, status: 0, problem: `no answer: ${(err as Error).message}`, text: '' });
          continue;
        }
        // an event stream that opens answers for as long as the client listens: its first chunk is what is judged
        const text = response.ok && response.headers.get('content-type')?.startsWith('text/event-stream') ? await firstChunk(response) : await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const fail = (problem: string) =>
          failures.push({ route: `${req.method} ${req.op.path}`, request: label, status: response.status, problem, text: text.slice(0, 300) });
        if (!response.headers.get('request-id')) fail('no Request-Id');
        if (response.status >= 500) fail('5xx');
        const script = req.op.servesScript && response.ok;
        if (!script && /\n\s+at .+\(|node_modules|\.[jt]s:\d+:\d+|Error: |QueryFailedError|invalid byte sequence/i.test(text)) fail('internals in the body');
        if (response.status < 400) continue;
        const type = response.headers.get('content-type') ?? '';
        const formPost = req.op.takesForm && req.contentType === 'application/x-www-form-urlencoded';
        if (type.startsWith('text/html') && (req.op.htmlErrors || formPost)) continue;
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          fail('error body is not JSON');
          continue;
        }
        const error = body?.error;
        const shapeOk =
          type.startsWith('application/json') && Object.keys(body).join() === 'error' && codes.has(error?.code) &&
          ERROR_STATUS[error.code as ErrorCode] === response.status && typeof error.type === 'string' && typeof error.message === 'string' &&
          typeof error.doc_url === 'string' && new URL(error.doc_url).hash === `#${error.code}` &&
          (error.param === undefined || typeof error.param === 'string');
        if (!shapeOk) fail('not the error object');
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(`fuzz: seed ${SEED}, ${REQUESTS} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}\n`);
    // one example of each kind of failure, by route and problem
    const kinds = new Map(failures.map((f) => [`${f.route} ${f.problem}`, f]));
    expect([...kinds.values()]).toEqual([]);
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
  });
});

async function firstChunk(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  try {
    const { value } = await reader.read();
    return new TextDecoder().decode(value);
  } finally {
    await reader.cancel();
  }
}
