/**
 * SQL that rewrites search_lease_take's definition as pg_get_functiondef writes it (its settings
 * kept): each `from` replaced by its `to`, refused when a `from` is not in it (the definition is
 * not the one the migration was written against). `dropFirst`: the function is dropped and made
 * again in the same statement, for a change of its result type, which CREATE OR REPLACE refuses.
 * Migrations 1764000022000 and 1764000025000 run what this writes: it must keep writing the same.
 */
export function rewriteLeaseTake(pairs: [string, string][], options: { dropFirst?: boolean } = {}): string {
  return `DO $do$
  DECLARE def text := pg_get_functiondef('search_lease_take(text, text[])'::regprocedure);
  BEGIN
    ${pairs.map(([from]) => `IF position(${literal(from)} IN def) = 0 THEN
      RAISE EXCEPTION 'search_lease_take is not the definition this migration rewrites';
    END IF;`).join('\n    ')}
    ${pairs.map(([from, to]) => `def := replace(def, ${literal(from)}, ${literal(to)});`).join('\n    ')}
    ${options.dropFirst ? 'DROP FUNCTION search_lease_take(text, text[]);' : ''}
    EXECUTE def;
  END
$do$`;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
