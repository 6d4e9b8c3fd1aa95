/**
 * Wide files in linear time: apache-arrow 21's `Schema.prototype.assign`
 * looks every field up by name with `findIndex` over all fields, and every
 * `new RecordBatch(schema, data)` (each batch read, each batch written)
 * calls it — O(d²) per batch: 30,000 columns took 17 s to describe and
 * 100,000 never finished. This module replaces it, once, with the same
 * function built on a name → first-index map (the same fields, the same
 * order, the same metadata merge: for each new field the first current
 * field of that name is replaced by a clone carrying both metadata maps;
 * fields with new names are appended), so the library's results are
 * unchanged and a batch of d columns costs O(d).
 *
 * Imported for its effect by `arrow.ts`, which every Arrow read and write
 * goes through.
 *
 * @example
 * import './arrow-linear.ts';
 * new RecordBatch(schemaOf100kColumns, data); // milliseconds, not minutes
 */
import { DataType, Field, Schema, type Dictionary } from 'apache-arrow';

type Assign = (this: Schema, ...args: unknown[]) => Schema;

function mergeMaps<K, V>(into: Map<K, V>, from: Map<K, V> | null | undefined): Map<K, V> {
  if (from) for (const [k, v] of from) into.set(k, v);
  return into;
}

/** Dictionary-typed fields of `fields` (and their children), by dictionary id, as apache-arrow's `generateDictionaryMap` collects them. */
function dictionariesOf(fields: readonly Field[], into: Map<number, unknown>): Map<number, unknown> {
  for (const field of fields) {
    const type = field.type;
    if (DataType.isDictionary(type)) {
      const { id, dictionary } = type as Dictionary;
      if (!into.has(id)) into.set(id, dictionary);
      else if (into.get(id) !== dictionary) throw new Error('Cannot create Schema containing two different dictionaries with the same Id');
    }
    if (type.children && type.children.length > 0) dictionariesOf(type.children, into);
  }
  return into;
}

const linearAssign: Assign = function (this: Schema, ...args: unknown[]): Schema {
  const other = args[0] instanceof Schema ? args[0] : Array.isArray(args[0]) ? new Schema(args[0] as Field[]) : new Schema(args as Field[]);
  const curFields = [...this.fields];
  const firstByName = new Map<string, number>();
  curFields.forEach((f, i) => {
    if (!firstByName.has(f.name)) firstByName.set(f.name, i);
  });
  const metadata = mergeMaps(mergeMaps(new Map<string, string>(), this.metadata), other.metadata);
  const newFields = other.fields.filter((f2) => {
    const i = firstByName.get(f2.name);
    if (i === undefined) return true;
    curFields[i] = f2.clone({ metadata: mergeMaps(mergeMaps(new Map<string, string>(), curFields[i].metadata), f2.metadata) });
    return false;
  });
  const newDictionaries = dictionariesOf(newFields, new Map());
  return new Schema([...curFields, ...newFields], metadata, new Map([...this.dictionaries, ...newDictionaries]) as Schema['dictionaries']);
};

(Schema.prototype as unknown as { assign: Assign }).assign = linearAssign;
