// A product form's fields as the product operation's input: lists typed one per line (categories, image URLs,
// attributes as name=value) or comma-separated (tags), and variant rows variants.<n>.<field>. Empty new rows and
// rows marked for removal are left out; `rowOf` maps an input variant's index back to its row in the form, so a
// refusal lands beside the right field.

const VARIANT_FIELDS = ["id", "title", "sku", "price", "listPrice", "inventory", "weightGrams"] as const;

const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

export const productFromForm = (data: FormData) => {
  const get = (name: string) => String(data.get(name) ?? "");
  const values: Record<string, string> = {};
  for (const name of ["title", "handle", "description", "categories", "tags", "attributes", "images"]) {
    values[name] = get(name);
  }
  const count = Math.min(Number(get("variantCount")) || 0, 100);
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
    attributes: lines(values.attributes!).map((line) => {
      const at = line.indexOf("=");
      return at < 0 ? { name: line, value: "" } : { name: line.slice(0, at), value: line.slice(at + 1) };
    }),
    images: lines(values.images!).map((url) => ({ url })),
    variants,
  };
  return { raw, values, rowOf };
};

/** A refused field's name with the variant's index turned back into its row of the form. */
export const formField = (field: string, rowOf: number[]): string => {
  const match = /^variants\.(\d+)\.(\w+)$/.exec(field);
  return match ? `variants.${rowOf[Number(match[1])] ?? match[1]}.${match[2]}` : field;
};
