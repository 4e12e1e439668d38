import { z } from "zod";

import { productInputSchema, type ProductInput } from "../admin/schemas";
import { CsvSyntaxError, parseCsv } from "./csv";

// A catalog file as products to write: each product is checked here with the very schema of the admin's product
// form, and every refusal names the row (a CSV record number, header = row 1; a JSON array item from 1), the field
// and the message. Rows sharing a handle are one product with several variants (the first row carries the product's
// fields); a row without a handle is a product of its own. Lists in a cell are separated by "|", attributes are
// name=value.

export const CSV_COLUMNS = [
  "handle",
  "title",
  "description",
  "variant_title",
  "sku",
  "price",
  "list_price",
  "inventory",
  "weight_grams",
  "categories",
  "tags",
  "attributes",
  "image_urls",
] as const;
type Column = (typeof CSV_COLUMNS)[number];

/** The most products one file may hold. */
export const MAX_IMPORT_PRODUCTS = 10_000;

export type RowRejection = { row: number; field: string; message: string };
/** A product ready to write: its input (already valid) and the rows it came from. */
export type ImportItem = { rows: number[]; input: ProductInput };
export type PreparedImport = { items: ImportItem[]; rejected: RowRejection[]; total: number };

/** A whole-file refusal (not a CSV, unknown columns, too large): nothing of it is imported. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportFileError";
  }
}

const list = (cell: string | undefined): string[] =>
  (cell ?? "")
    .split("|")
    .map((s) => s.trim())
    .filter(Boolean);

/** The CSV column a schema path points at ("variants", 1, "listPrice" → list_price). */
const columnOf = (path: readonly PropertyKey[]): string => {
  const [head, , leaf] = path;
  if (head === "variants") {
    if (leaf === undefined) return "price";
    return (
      (
        { title: "variant_title", listPrice: "list_price", weightGrams: "weight_grams" } as Record<
          string,
          string
        >
      )[String(leaf)] ?? String(leaf)
    );
  }
  if (head === "images") return "image_urls";
  return String(head ?? "row");
};

/** Which of the group's rows a schema path points at (a variant's own row, else the product's first row). */
const rowOf = (rows: number[], path: readonly PropertyKey[]): number =>
  path[0] === "variants" && typeof path[1] === "number" ? (rows[path[1]] ?? rows[0]!) : rows[0]!;

const attributeCells = (cell: string | undefined, reject: (message: string) => void) =>
  list(cell).flatMap((pair) => {
    const at = pair.indexOf("=");
    if (at <= 0) {
      reject(`Write each attribute as name=value (got "${pair}")`);
      return [];
    }
    return [{ name: pair.slice(0, at), value: pair.slice(at + 1) }];
  });

/** Reads and checks a CSV catalog. @throws ImportFileError */
export const prepareCsvImport = (text: string, currency: string): PreparedImport => {
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError)
      throw new ImportFileError(`This is not a readable CSV file: ${error.message}`);
    throw error;
  }
  const header = (records[0] ?? []).map((h) => h.trim().toLowerCase());
  if (header.length === 0 || header.every((h) => h === "")) throw new ImportFileError("The file is empty");
  const unknown = header.filter((h) => !(CSV_COLUMNS as readonly string[]).includes(h));
  if (unknown.length > 0) {
    throw new ImportFileError(
      `Unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => `"${u}"`).join(", ")}: use ${CSV_COLUMNS.join(", ")}`,
    );
  }
  for (const needed of ["title", "price"] as const) {
    if (!header.includes(needed)) throw new ImportFileError(`The header has no "${needed}" column`);
  }
  const groups: { rows: number[]; cells: Partial<Record<Column, string>>[] }[] = [];
  const tooWide: RowRejection[] = [];
  records.slice(1).forEach((record, i) => {
    const row = i + 2;
    if (record.every((cell) => cell.trim() === "")) return;
    if (record.length > header.length) {
      // a cell with an unquoted comma shifts every column after it: never guess which was meant
      tooWide.push({
        row,
        field: "row",
        message: `This row has ${record.length} fields but the header has ${header.length}: quote cells that contain commas`,
      });
      return;
    }
    const cells = Object.fromEntries(header.map((h, k) => [h, record[k] ?? ""])) as Partial<
      Record<Column, string>
    >;
    const handle = cells.handle?.trim().toLowerCase();
    const last = groups.at(-1);
    if (handle && last && last.cells[0]!.handle?.trim().toLowerCase() === handle) {
      last.rows.push(row);
      last.cells.push(cells);
    } else groups.push({ rows: [row], cells: [cells] });
  });
  if (groups.length > MAX_IMPORT_PRODUCTS) {
    throw new ImportFileError(
      `The file has ${groups.length} products: import at most ${MAX_IMPORT_PRODUCTS} at once`,
    );
  }
  const schema = productInputSchema(currency);
  const items: ImportItem[] = [];
  const rejected: RowRejection[] = [...tooWide];
  for (const group of groups) {
    const first = group.cells[0]!;
    const problems: RowRejection[] = [];
    const raw = {
      handle: first.handle,
      title: first.title ?? "",
      description: first.description,
      categories: list(first.categories),
      tags: list(first.tags),
      attributes: attributeCells(first.attributes, (message) =>
        problems.push({ row: group.rows[0]!, field: "attributes", message }),
      ),
      images: list(first.image_urls).map((url) => ({ url })),
      variants: group.cells.map((cells) => ({
        title: cells.variant_title?.trim() || "Default",
        sku: cells.sku,
        price: cells.price ?? "",
        listPrice: cells.list_price,
        inventory: cells.inventory?.trim() || "0",
        weightGrams: cells.weight_grams,
      })),
    };
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push({
          row: rowOf(group.rows, issue.path),
          field: columnOf(issue.path),
          message: issue.message,
        });
      }
    }
    if (problems.length > 0 || !parsed.success) rejected.push(...problems);
    else items.push({ rows: group.rows, input: parsed.data });
  }
  return {
    items,
    rejected: rejected.toSorted((a, b) => a.row - b.row),
    total: groups.length + tooWide.length,
  };
};

/** Reads and checks a JSON catalog: an array of products in the product form's fields. @throws ImportFileError */
export const prepareJsonImport = (text: string, currency: string): PreparedImport => {
  let data: unknown;
  try {
    data = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new ImportFileError(`This is not a readable JSON file: ${(error as Error).message}`);
  }
  const products = Array.isArray(data)
    ? data
    : z.object({ products: z.array(z.unknown()) }).safeParse(data).data?.products;
  if (!products) throw new ImportFileError('Send a JSON array of products (or { "products": [ … ] })');
  if (products.length > MAX_IMPORT_PRODUCTS) {
    throw new ImportFileError(
      `The file has ${products.length} products: import at most ${MAX_IMPORT_PRODUCTS} at once`,
    );
  }
  const schema = productInputSchema(currency);
  const items: ImportItem[] = [];
  const rejected: RowRejection[] = [];
  products.forEach((product, i) => {
    const parsed = schema.safeParse(product);
    if (parsed.success) items.push({ rows: [i + 1], input: parsed.data });
    else {
      for (const issue of parsed.error.issues) {
        rejected.push({
          row: i + 1,
          field:
            issue.path
              .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
              .join("")
              .replace(/^\./, "") || "product",
          message: issue.message,
        });
      }
    }
  });
  return { items, rejected, total: products.length };
};
