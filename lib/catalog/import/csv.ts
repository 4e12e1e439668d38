// A small RFC 4180 reader: fields separated by commas, records by CRLF or LF; a field in double quotes may hold
// commas, line breaks and doubled quotes (""). A leading UTF-8 byte-order mark (spreadsheets write one) is skipped,
// and a final line break does not make an empty record. Malformed text (a quote inside an unquoted field, text
// after a closing quote, a quote never closed) is refused with the record's number rather than guessed at.

export class CsvSyntaxError extends Error {
  readonly record: number;
  constructor(message: string, record: number) {
    super(`Record ${record}: ${message}`);
    this.name = "CsvSyntaxError";
    this.record = record;
  }
}

/** The records of `text`, each an array of its fields (record 1 is the first line, usually the header). */
export const parseCsv = (text: string): string[][] => {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let quoted = false;
  /** The field just ended with a closing quote: only a separator may follow. */
  let closed = false;
  let fieldStarted = false;
  const endField = () => {
    record.push(field);
    field = "";
    closed = false;
    fieldStarted = false;
  };
  const endRecord = () => {
    endField();
    records.push(record);
    record = [];
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        closed = true;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === ",") {
      endField();
      i++;
      continue;
    }
    if (c === "\r" && text[i + 1] === "\n") {
      endRecord();
      i += 2;
      continue;
    }
    if (c === "\n" || c === "\r") {
      endRecord();
      i++;
      continue;
    }
    if (closed) throw new CsvSyntaxError("text after a closing quote", records.length + 1);
    if (c === '"') {
      if (fieldStarted) {
        throw new CsvSyntaxError(
          "a quote inside an unquoted field (quote the whole field and double the quote)",
          records.length + 1,
        );
      }
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    field += c;
    fieldStarted = true;
    i++;
  }
  if (quoted) throw new CsvSyntaxError("a quoted field is never closed", records.length + 1);
  // text not ending in a line break still has its last record; an empty text has none
  if (fieldStarted || closed || record.length > 0) endRecord();
  return records;
};
