/** A run of percent-escapes, or a `%` that starts none. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+|%/g;

/**
 * Fastify's router refuses a path whose percent-encoding does not decode (`%zz`, a cut `%4`,
 * escapes of bytes that are not UTF-8) before any hook runs: no authentication, no rate limit,
 * no count. Each such `%` is escaped as `%25` instead (Fastify's `rewriteUrl`), so the request
 * is routed like any other and passes through the whole pipeline, which answers it 400 once it is
 * authenticated and counted (it tells a rewritten URL by `originalUrl`). Well-formed paths are
 * returned as they are.
 */
export function routableUrl(url: string): string {
  const percent = url.indexOf('%');
  if (percent === -1) return url;
  let end = url.search(/[?#]/);
  if (end === -1) end = url.length;
  if (percent > end) return url;
  const path = url.slice(0, end);
  try {
    decodeURI(path);
    return url;
  } catch {
    const fixed = path.replace(ESCAPES, (run) => {
      try {
        decodeURIComponent(run);
        return run;
      } catch {
        return run.replace(/%/g, '%25');
      }
    });
    return fixed + url.slice(end);
  }
}
