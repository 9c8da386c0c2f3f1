// The Metrics Explorer's pure parts: which rows a topic has, filtering, sorting, labels and
// the file check, on a small hand-built file.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  COLOURS,
  checkData,
  columnText,
  filterExample,
  filterRows,
  formatValue,
  labelText,
  nonzeroRows,
  sortRows,
  topicRows,
} from "../metrics/explorer.js";

const DATA = {
  format: "marl-bgs/season-metrics",
  roster: ["mage", "warrior", "hunter", "rogue", "priest"],
  columns: ["deaths.a0.deaths", "damage_done.by_a0.to_b1.basic", "damage_done.by_a2.to_b0.basic", "damage_done.by_a1.to_b3.ultimate"],
  units: ["per 100 ticks", "per 100 ticks", "per 100 ticks", "per 100 ticks"],
  topics: [{ name: "damage_done", section: "Damage and healing", title: "Damage done", description: "x", columns: 3 }],
  entrants: [
    { name: "P", value: [1, 30, null, 0], low: [1, 20, null, 0], high: [1, 40, null, 0] },
    { name: "Q", value: [2, 10, 50, 0], low: [2, 5, 40, 0], high: [2, 15, 60, 0] },
  ],
};

test("a topic's rows are its columns, in file order, without the prefix", () => {
  const rows = topicRows(DATA, "damage_done");
  assert.deepEqual(rows.map((r) => r.index), [1, 2, 3]);
  assert.deepEqual(rows.map((r) => r.label), ["by_a0.to_b1.basic", "by_a2.to_b0.basic", "by_a1.to_b3.ultimate"]);
  assert.deepEqual(topicRows(DATA, "damage"), []); // a prefix of a topic name is not a topic
});

test("filters need every word, in any case", () => {
  const rows = topicRows(DATA, "damage_done");
  assert.deepEqual(filterRows(rows, "BASIC to_b0").map((r) => r.index), [2]);
  assert.equal(filterRows(rows, "  ").length, 3);
});

test("sorting by an entrant puts missing values last, both ways", () => {
  const rows = topicRows(DATA, "damage_done");
  assert.deepEqual(sortRows(rows, DATA, 0, true).map((r) => r.index), [1, 3, 2]);
  assert.deepEqual(sortRows(rows, DATA, 0, false).map((r) => r.index), [3, 1, 2]);
  assert.deepEqual(sortRows(rows, DATA, 1, true).map((r) => r.index), [2, 1, 3]);
  assert.deepEqual(sortRows(sortRows(rows, DATA, 1, true), DATA, "label", false).map((r) => r.index), [1, 2, 3]);
});

test("all-zero rows are those zero for every entrant shown", () => {
  const rows = topicRows(DATA, "damage_done");
  assert.deepEqual(nonzeroRows(rows, DATA, [0, 1]).map((r) => r.index), [1, 2]);
  assert.deepEqual(nonzeroRows(rows, DATA, [0]).map((r) => r.index), [1]);
});

test("labels read as words, with the season's roster", () => {
  assert.equal(labelText("by_a2", DATA.roster), "by own slot 2 (hunter)");
  assert.equal(labelText("to_b0", null), "to opponent slot 0");
  assert.equal(labelText("on_none", null), "with no target");
  assert.equal(labelText("slow_hunter", null), "slow hunter");
  assert.equal(columnText({ label: "by_a0.to_b1.basic" }, DATA.roster), "by own slot 0 (mage), to opponent slot 1 (warrior), basic");
});

test("numbers keep a few digits and a missing one is a dash", () => {
  assert.equal(formatValue(null), "–");
  assert.equal(formatValue(0), "0");
  assert.equal(formatValue(0.12345), "0.123");
  assert.equal(formatValue(12.345), "12.35");
  assert.equal(formatValue(12345.6), "12,346");
});

test("a bad file is refused naming the field", () => {
  assert.equal(checkData(DATA), DATA);
  assert.throws(() => checkData({ ...DATA, format: "x" }), /explorer.json: format/);
  const short = { ...DATA, entrants: [{ name: "P", value: [1], low: [], high: [] }] };
  assert.throws(() => checkData(short), /entrants\[0\]\.value: expected 4 numbers/);
  assert.throws(() => checkData(null), /the file/);
});

test("the filter's example finds some of the topic's columns, not all", () => {
  const rows = topicRows(DATA, "damage_done");
  const word = filterExample(rows);
  assert.equal(word, "basic");
  const found = filterRows(rows, word).length;
  assert.ok(found > 0 && found < rows.length);
  assert.equal(filterExample([]), "");
});

test("twelve entrants get twelve different colours", () => {
  assert.equal(new Set(COLOURS.map((c) => c.toLowerCase())).size, 12);
});
