import * as pg from 'pg';

/**
 * node-postgres (8.x) builds each query's empty row from its RowDescription as an
 * `Object.create(null)` object, which V8 keeps in dictionary mode, and spreads it per row: on a
 * 29-column lead that was 10 µs of the crm's ~110 µs of CPU per GET /leads/{id} (pg's
 * `addFields`, the largest single item in its profile), for every query of every service. Here
 * the empty row is a plain object literal filled in column order, which V8 keeps as fast
 * properties and clones cheaply; rows are the same ordinary objects with the same keys in the
 * same order. A result with a column named `__proto__` keeps pg's own prototype-free shape
 * (assigning `__proto__` on a plain object would set its prototype).
 */
interface FieldDescription {
  name: string;
  dataTypeID: number;
  format?: string;
}
interface TypeParsers {
  getTypeParser(oid: number, format: string): (value: unknown) => unknown;
}
interface ResultInternals {
  fields: FieldDescription[];
  _parsers?: ((value: unknown) => unknown)[];
  _types?: TypeParsers;
  _prebuiltEmptyResultObject: Record<string, unknown>;
}

const PATCHED = Symbol.for('lead-intelligence.pg-fast-rows');

export function installFastRowShape(): void {
  // the Result class and type parsers pg builds its results with (both on its exports)
  const { Result, types } = pg as unknown as { Result: { prototype: Record<string | symbol, unknown> }; types: TypeParsers };
  const original = Result.prototype.addFields as (this: ResultInternals, fields: FieldDescription[]) => void;
  if (typeof original !== 'function' || Result.prototype[PATCHED]) return;
  Result.prototype[PATCHED] = true;
  Result.prototype.addFields = function addFields(this: ResultInternals, fieldDescriptions: FieldDescription[]): void {
    const parsers = this._types ?? types;
    const rowParsers: ((value: unknown) => unknown)[] = new Array(fieldDescriptions.length);
    const row: Record<string, unknown> = {};
    for (let i = 0; i < fieldDescriptions.length; i++) {
      const desc = fieldDescriptions[i];
      // pg's own code sets every field of the result afresh
      if (desc.name === '__proto__') return original.call(this, fieldDescriptions);
      row[desc.name] = null;
      rowParsers[i] = parsers.getTypeParser(desc.dataTypeID, desc.format || 'text');
    }
    this.fields = fieldDescriptions;
    // as pg: a result of no columns keeps the parsers it had
    if (fieldDescriptions.length) this._parsers = rowParsers;
    this._prebuiltEmptyResultObject = row;
  };
}
