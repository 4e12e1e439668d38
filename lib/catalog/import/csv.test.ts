import assert from "node:assert/strict";
import { test } from "node:test";

import { CsvSyntaxError, parseCsv } from "./csv";

test("plain records, CRLF or LF, with or without a final line break", () => {
  assert.deepEqual(parseCsv("a,b,c\r\n1,2,3\r\n"), [
    ["a", "b", "c"],
    ["1", "2", "3"],
  ]);
  assert.deepEqual(parseCsv("a,b\n1,2"), [
    ["a", "b"],
    ["1", "2"],
  ]);
  assert.deepEqual(parseCsv(""), []);
});

test("empty fields are kept, including a trailing one", () => {
  assert.deepEqual(parseCsv("a,,c,\n,,,\n"), [
    ["a", "", "c", ""],
    ["", "", "", ""],
  ]);
});

test("quoted fields hold commas, line breaks and doubled quotes", () => {
  assert.deepEqual(parseCsv('title,description\n"Boots, leather","Say ""hi""\nsecond line\r\nthird"\n'), [
    ["title", "description"],
    ["Boots, leather", 'Say "hi"\nsecond line\r\nthird'],
  ]);
  assert.deepEqual(parseCsv('""\n""""'), [[""], ['"']]);
});

test("a byte-order mark is skipped and spaces are data", () => {
  assert.deepEqual(parseCsv("\ufeffa, b \n"), [["a", " b "]]);
});

test("malformed quoting is refused with the record number", () => {
  for (const [text, record, pattern] of [
    ['a\nb"c\n', 2, /quote inside an unquoted field/],
    ['a\n"bc"d\n', 2, /after a closing quote/],
    ['a\nb\n"never closed\n', 3, /never closed/],
  ] as const) {
    assert.throws(
      () => parseCsv(text),
      (error: unknown) => {
        assert.ok(error instanceof CsvSyntaxError);
        assert.equal(error.record, record);
        assert.match(error.message, pattern);
        return true;
      },
    );
  }
});
