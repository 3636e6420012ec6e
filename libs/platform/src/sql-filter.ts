import { decodeCursor } from './pagination';

/** `%text%` for ILIKE with the pattern characters of `text` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The WHERE clause and parameters of a workspace-scoped keyset list: every list query starts
 * from the workspace and the cursor, then adds its own filters.
 */
export class ListFilter {
  readonly params: unknown[] = [];
  private readonly clauses: string[] = [];

  constructor(workspaceId: string, startingAfter?: string, column = 'id') {
    this.add((p) => `workspace_id = ${p}`, workspaceId);
    if (startingAfter) this.add((p) => `${column} < ${p}`, decodeCursor(startingAfter));
  }

  /** Adds `clause` with `value` as its parameter; skipped when the value is undefined. */
  add(clause: (placeholder: string) => string, value: unknown): this {
    if (value === undefined) return this;
    this.params.push(value);
    this.clauses.push(clause(`$${this.params.length}`));
    return this;
  }

  /** Any of `columns` contains `text`, case-insensitively. */
  contains(columns: string[], text: string | undefined): this {
    if (!text) return this;
    return this.add((p) => `(${columns.map((c) => `${c} ILIKE ${p}`).join(' OR ')})`, containsPattern(text));
  }

  /** `WHERE …`: every clause added. */
  where(): string {
    return `WHERE ${this.clauses.join(' AND ')}`;
  }

  /** `WHERE … ORDER BY id DESC LIMIT n+1`: one extra row tells whether another page exists. */
  page(limit: number, column = 'id'): string {
    this.params.push(limit + 1);
    return `${this.where()} ORDER BY ${column} DESC LIMIT $${this.params.length}`;
  }
}
