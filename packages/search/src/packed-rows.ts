/**
 * Entry rows as a few flat arrays, for the index worker to post to the thread that writes
 * (`read-ahead.ts`): a structured clone of row objects costs per property, and receiving them
 * took a fifth of the writing thread's time in a build; numbers in one typed array and strings
 * in one array cost a fraction of that. {@link packRows} and {@link unpackRows} are inverses,
 * but for the documents' texts, which travel once, as the index texts.
 */
import type { EntryRow } from "./database.js";
import type { UsageSource } from "./documents/index.js";

/** Rows packed by {@link packRows}. */
export interface PackedRows {
  count: number;
  /** {@link ROW_NUMBERS} per row. */
  numbers: Float64Array;
  /** {@link ROW_STRINGS} per row. */
  strings: (string | null)[];
  /** Each row's document tools, its files, then tool, action and path of each touch (their counts are in `numbers`). */
  lists: string[];
  /** {@link USAGE_NUMBERS} per usage row (the first: the index of its row). */
  usageNumbers: Float64Array;
  /** {@link USAGE_STRINGS} per usage row. */
  usageStrings: string[];
}

// Row numbers: ordinal, line, offset, length, time (0 when null), time is null, on branch,
// errored, tools, files, touches.
const ROW_NUMBERS = 11;
// Row strings: id, parent id, type, role, model, the four texts, the four parts.
const ROW_STRINGS = 13;
// Usage numbers: row, time, input, output, cache read, cache write, total tokens, cost.
const USAGE_NUMBERS = 8;
// Usage strings: key, source, model.
const USAGE_STRINGS = 3;

export function packRows(rows: readonly EntryRow[]): PackedRows {
  const numbers = new Float64Array(rows.length * ROW_NUMBERS);
  const strings: (string | null)[] = [];
  const lists: string[] = [];
  const usage: EntryRow["usage"][] = [];
  const usageRows: number[] = [];
  rows.forEach((row, i) => {
    const d = row.doc;
    const at = i * ROW_NUMBERS;
    numbers[at] = row.ordinal;
    numbers[at + 1] = row.line;
    numbers[at + 2] = row.offset;
    numbers[at + 3] = row.length;
    numbers[at + 4] = d.time ?? 0;
    numbers[at + 5] = d.time === null ? 1 : 0;
    numbers[at + 6] = row.onBranch ? 1 : 0;
    numbers[at + 7] = d.errored ? 1 : 0;
    numbers[at + 8] = d.tools.length;
    numbers[at + 9] = d.files.length;
    numbers[at + 10] = row.touches.length;
    const { texts, parts } = row.indexed;
    strings.push(d.id, d.parentId, d.type, d.role, d.model);
    strings.push(texts.body, texts.thinking, texts.tool, texts.output);
    strings.push(parts.body, parts.thinking, parts.tool, parts.output);
    lists.push(...d.tools, ...d.files);
    for (const t of row.touches) lists.push(t.tool, t.action, t.path);
    if (row.usage) {
      usage.push(row.usage);
      usageRows.push(i);
    }
  });
  const usageNumbers = new Float64Array(usage.length * USAGE_NUMBERS);
  const usageStrings: string[] = [];
  usage.forEach((u, k) => {
    if (!u) return;
    const at = k * USAGE_NUMBERS;
    usageNumbers[at] = usageRows[k] as number;
    usageNumbers[at + 1] = u.time;
    usageNumbers[at + 2] = u.input;
    usageNumbers[at + 3] = u.output;
    usageNumbers[at + 4] = u.cacheRead;
    usageNumbers[at + 5] = u.cacheWrite;
    usageNumbers[at + 6] = u.totalTokens;
    usageNumbers[at + 7] = u.cost;
    usageStrings.push(u.key, u.source, u.model);
  });
  return { count: rows.length, numbers, strings, lists, usageNumbers, usageStrings };
}

/** The rows of {@link packRows}; the documents' texts are empty (the index texts have them). */
export function unpackRows(packed: PackedRows): EntryRow[] {
  const { numbers, strings, lists, usageNumbers, usageStrings } = packed;
  const rows: EntryRow[] = [];
  let list = 0;
  const text = (at: number) => strings[at] as string;
  for (let i = 0; i < packed.count; i++) {
    const n = i * ROW_NUMBERS;
    const s = i * ROW_STRINGS;
    const tools = lists.slice(list, list + (numbers[n + 8] as number));
    list += tools.length;
    const files = lists.slice(list, list + (numbers[n + 9] as number));
    list += files.length;
    const touches: EntryRow["touches"][number][] = [];
    for (let k = 0; k < (numbers[n + 10] as number); k++, list += 3)
      touches.push({
        tool: lists[list] as string,
        action: lists[list + 1] as EntryRow["touches"][number]["action"],
        path: lists[list + 2] as string,
      });
    rows.push({
      ordinal: numbers[n] as number,
      line: numbers[n + 1] as number,
      offset: numbers[n + 2] as number,
      length: numbers[n + 3] as number,
      doc: {
        id: strings[s] ?? null,
        parentId: strings[s + 1] ?? null,
        type: text(s + 2),
        role: strings[s + 3] ?? null,
        time: numbers[n + 5] === 1 ? null : (numbers[n + 4] as number),
        model: strings[s + 4] ?? null,
        tools,
        files,
        errored: numbers[n + 7] === 1,
        body: "",
        thinking: "",
        tool: "",
        output: "",
      },
      indexed: {
        texts: { body: text(s + 5), thinking: text(s + 6), tool: text(s + 7), output: text(s + 8) },
        parts: { body: text(s + 9), thinking: text(s + 10), tool: text(s + 11), output: text(s + 12) },
      },
      onBranch: numbers[n + 6] === 1,
      usage: undefined,
      touches,
    });
  }
  for (let k = 0; k * USAGE_NUMBERS < usageNumbers.length; k++) {
    const n = k * USAGE_NUMBERS;
    const s = k * USAGE_STRINGS;
    const row = rows[usageNumbers[n] as number];
    if (!row) continue;
    row.usage = {
      key: usageStrings[s] as string,
      source: usageStrings[s + 1] as UsageSource,
      model: usageStrings[s + 2] as string,
      time: usageNumbers[n + 1] as number,
      input: usageNumbers[n + 2] as number,
      output: usageNumbers[n + 3] as number,
      cacheRead: usageNumbers[n + 4] as number,
      cacheWrite: usageNumbers[n + 5] as number,
      totalTokens: usageNumbers[n + 6] as number,
      cost: usageNumbers[n + 7] as number,
    };
  }
  return rows;
}

/** Row text in KiB (what the writer holds of it until it is written). */
export function packedKiB(packed: PackedRows): number {
  let chars = 0;
  for (let i = 0; i < packed.count; i++) {
    const s = i * ROW_STRINGS;
    for (let k = 5; k < ROW_STRINGS; k++) chars += (packed.strings[s + k] as string).length;
  }
  return Math.ceil(chars / 1024);
}
