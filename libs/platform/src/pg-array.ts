/** An element written as it is: letters, digits and `_ . : @ + -` (no delimiter, brace, quote, backslash or space). */
const BARE = /^[A-Za-z0-9_.:@+-]+$/;
/** What a quoted element must escape. */
const ESCAPED = /["\\]/;

/**
 * A one-dimensional array parameter as PostgreSQL's array literal (`{a,"(1,2)",NULL}`), for an
 * element type whose delimiter is the comma (text, int, tid, xid: every type but box): the text
 * node-postgres sends for a JavaScript array, written with less work. node-postgres quotes every
 * element and runs two replacements on each: 37 µs a page for the six arrays of a search statement
 * of three pages, against 15 here (docs/benchmarks.md, 2026-12-02 15:58-17:08); here an element
 * that needs no quotes goes as it is, one test, and only an element holding a quote or a
 * backslash is escaped. `null` and `undefined` are NULL; an element spelled `null` in any case
 * is quoted (bare, it would be the null value), and so is an empty one (bare, a syntax error).
 */
export function pgArrayLiteral(values: readonly (string | number | null | undefined)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const value = values[i];
    if (value === null || value === undefined) {
      out += 'NULL';
      continue;
    }
    const text = typeof value === 'string' ? value : String(value);
    if (BARE.test(text) && !(text.length === 4 && text.toLowerCase() === 'null')) out += text;
    else if (!ESCAPED.test(text)) out += `"${text}"`;
    else out += `"${text.replace(/["\\]/g, '\\$&')}"`;
  }
  return `${out}}`;
}
