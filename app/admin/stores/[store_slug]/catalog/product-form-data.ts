// A product form's fields as the product operation's input: categories one per line, tags comma-separated, and
// rows of fields: images.<n>.{url,alt}, attributes.<n>.{name,value} and variants.<n>.<field>. Empty rows and
// variant rows marked for removal are left out; `rows` maps an input item's index back to its row in the form, so
// a refusal lands beside the right field.

const VARIANT_FIELDS = ["id", "title", "sku", "price", "listPrice", "inventory", "weightGrams"] as const;

const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The most rows of each list a form may send (the schema's own limits are lower and say so). */
const MAX_ROWS = 100;
export type RowMaps = Record<"variants" | "images" | "attributes", number[]>;

/** Rows <list>.<n>.<field> for n below the form's <list>Count: each row's fields, the blank rows left out. */
const readRows = <F extends string>(
  get: (name: string) => string,
  values: Record<string, string>,
  list: string,
  fields: readonly F[],
) => {
  const count = Math.min(Number(get(`${list}Count`)) || 0, MAX_ROWS);
  values[`${list}Count`] = String(count);
  const items: Record<F, string>[] = [];
  const rowOf: number[] = [];
  for (let n = 0; n < count; n++) {
    const row = Object.fromEntries(fields.map((f) => [f, get(`${list}.${n}.${f}`)])) as Record<F, string>;
    for (const f of fields) values[`${list}.${n}.${f}`] = row[f];
    if (fields.every((f) => row[f].trim() === "")) continue;
    rowOf.push(n);
    items.push(row);
  }
  return { items, rowOf };
};

export const productFromForm = (data: FormData) => {
  const get = (name: string) => String(data.get(name) ?? "");
  const values: Record<string, string> = {};
  for (const name of ["title", "handle", "description", "categories", "tags"]) {
    values[name] = get(name);
  }
  const images = readRows(get, values, "images", ["url", "alt"] as const);
  const attributes = readRows(get, values, "attributes", ["name", "value"] as const);
  const count = Math.min(Number(get("variantCount")) || 0, MAX_ROWS);
  values.variantCount = String(count);
  const variants: Record<string, string>[] = [];
  const rowOf: number[] = [];
  for (let n = 0; n < count; n++) {
    const row = Object.fromEntries(VARIANT_FIELDS.map((f) => [f, get(`variants.${n}.${f}`)]));
    for (const f of VARIANT_FIELDS) values[`variants.${n}.${f}`] = row[f]!;
    const removed = data.get(`variants.${n}.remove`) === "on";
    if (removed) values[`variants.${n}.remove`] = "on";
    const blank = !row.id && VARIANT_FIELDS.every((f) => row[f]!.trim() === "");
    if (removed || blank) continue;
    rowOf.push(n);
    const { id, ...rest } = row;
    variants.push({ ...(id ? { id } : {}), ...rest });
  }
  const raw = {
    title: values.title,
    handle: values.handle,
    description: values.description,
    categories: lines(values.categories!),
    tags: values
      .tags!.split(",")
      .map((t) => t.trim())
      .filter(Boolean),
    attributes: attributes.items,
    images: images.items,
    variants,
  };
  const rows: RowMaps = { variants: rowOf, images: images.rowOf, attributes: attributes.rowOf };
  return { raw, values, rows };
};

/** A refused field's name with the item's index turned back into its row of the form. */
export const formField = (field: string, rows: RowMaps): string => {
  const match = /^(variants|images|attributes)\.(\d+)\.(\w+)$/.exec(field);
  if (!match) return field;
  const list = match[1] as keyof RowMaps;
  return `${list}.${rows[list][Number(match[2])] ?? match[2]}.${match[3]}`;
};
