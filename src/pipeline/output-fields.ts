import { StatusError } from '../status-codes.js';

/**
 * The CSV/TSV columns of a job (reference 5.2). The names are the reference's, version fields
 * included (`ezpaarse_version`…), so that existing consumers of the CSV keep finding their columns.
 */
export const DEFAULT_OUTPUT_FIELDS: readonly string[] = Object.freeze([
  'datetime',
  'date',
  'login',
  'platform',
  'platform_name',
  'publisher_name',
  'rtype',
  'mime',
  'print_identifier',
  'online_identifier',
  'title_id',
  'doi',
  'publication_title',
  'publication_date',
  'unitid',
  'domain',
  'on_campus',
  'log_id',
  'ezpaarse_version',
  'ezpaarse_date',
  'middlewares_version',
  'middlewares_date',
  'platforms_version',
  'platforms_date',
  'middlewares',
]);

/** The `Output-Fields` header: fields to add (`+name`) and to remove (`-name`), in header order. */
export interface OutputFieldsSpec {
  add: string[];
  remove: string[];
}

/**
 * Reads `Output-Fields` (comma list of `+field` / `-field`). An absent or blank header changes
 * nothing. Items and names are trimmed; an empty item (or an operator without a name) is 4012, an
 * item starting with neither `+` nor `-` is 4013; the detail names the item so the client can fix it.
 */
export function parseOutputFields(header: string | undefined): OutputFieldsSpec {
  const spec: OutputFieldsSpec = { add: [], remove: [] };
  if (header === undefined || header.trim() === '') return spec;
  const items = header.split(',');
  for (let i = 0; i < items.length; i++) {
    const item = items[i].trim();
    if (item === '') throw new StatusError(4012, `item ${i + 1} of "${header}"`);
    const op = item[0];
    if (op !== '+' && op !== '-') {
      throw new StatusError(4013, `"${item}"`);
    }
    const name = item.slice(1).trim();
    if (name === '') throw new StatusError(4012, `"${item}" (item ${i + 1} of "${header}")`);
    (op === '+' ? spec.add : spec.remove).push(name);
  }
  return spec;
}

/**
 * The final column list (reference 5.2): the default list, then — skipping names already present —
 * the `+` fields, the fields middlewares add (in chain order), the log format's (or CSV input's)
 * fields; finally every `-` field is removed, so a removal wins over any addition.
 */
export function computeColumns(
  spec: OutputFieldsSpec,
  middlewareFields: readonly string[],
  formatFields: readonly string[],
): string[] {
  const columns = new Set<string>(DEFAULT_OUTPUT_FIELDS);
  for (const name of spec.add) columns.add(name);
  for (const name of middlewareFields) columns.add(name);
  for (const name of formatFields) columns.add(name);
  for (const name of spec.remove) columns.delete(name);
  return [...columns];
}
