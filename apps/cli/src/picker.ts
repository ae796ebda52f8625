/**
 * The interactive picker `pick` draws: a query line, a list fitted to the terminal, an
 * optional preview pane, keys read in raw mode. Use {@link runPicker} with a terminal's
 * input and output; it knows nothing of sessions (rows, filtering and previews are the
 * caller's). The alternate screen and raw mode are always undone: on Enter, Esc, Ctrl-C, a
 * signal, an error, and (the sequences written synchronously) at process exit.
 *
 * Every text shown comes from the caller as rows and preview lines, made one-line safe
 * (`oneLineField`) and cut to width here; the escape codes in the output are only our own.
 */
import { cutEnd, textWidth } from "@pi-session/render";
import { oneLineField } from "./terminal-safe.js";

export interface PickerRow {
  /** What Enter returns. */
  value: string;
  /** The columns of the row, left to right; the last is cut first. */
  cells: { text: string; color?: "dim" | "cyan" | "bold" | "magenta" }[];
}

export interface PickerSource {
  /** The rows for a query (newest first, or best first), maybe later (a search). */
  rows(query: string): PickerRow[] | Promise<PickerRow[]>;
  /** Lines describing a row, for the preview pane (maybe later: a file read). */
  preview?(row: PickerRow, width: number): string[] | Promise<string[]>;
  /**
   * Work the rows wait for (the session database's build): a line for the footer while it
   * runs (undefined once it is done), and the call that says it changed.
   */
  status?: { text(): string | undefined; onChange(listener: () => void): void };
}

export interface PickerTerminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

export interface PickerOptions {
  query?: string;
  /** Show the preview pane at this many columns or more (default 100). */
  previewMinColumns?: number;
}

/** The row chosen (Enter), or undefined (Esc, Ctrl-C, a signal). */
export async function runPicker(
  terminal: PickerTerminal,
  source: PickerSource,
  options: PickerOptions = {},
): Promise<PickerRow | undefined> {
  const { input, output } = terminal;
  // A terminal's writes are synchronous, so this lands even from an `exit` handler.
  const restore = () => {
    try {
      output.write(LEAVE);
    } catch {
      // The terminal is gone: nothing to restore on it.
    }
  };
  let query = options.query ?? "";
  let rows: PickerRow[] = [];
  let selected = 0;
  let top = 0;
  let generation = 0;
  const previews = new Map<string, string[]>();
  let done: (row: PickerRow | undefined) => void = () => {};
  const finished = new Promise<PickerRow | undefined>((resolve) => {
    done = resolve;
  });

  const size = () => ({ cols: Math.max(20, output.columns || 80), lines: Math.max(5, output.rows || 24) });
  // Set once the picker has ended: a late search or preview draws nothing more.
  let closed = false;
  const draw = () => {
    if (closed) return;
    const { cols, lines } = size();
    const withPreview = source.preview !== undefined && cols >= (options.previewMinColumns ?? 100);
    const listWidth = withPreview ? Math.floor(cols * 0.5) - 1 : cols;
    const listLines = lines - 2;
    if (selected < top) top = selected;
    if (selected >= top + listLines) top = selected - listLines + 1;
    const screen: string[] = [];
    const count = `${rows.length === 0 ? 0 : selected + 1}/${rows.length}`;
    const prompt = cutEnd(`> ${oneLineField(query)}`, cols - count.length - 2);
    screen.push(`${BOLD}${prompt}${RESET}${pad(prompt, cols - count.length)}${DIM}${count}${RESET}`);
    const preview = withPreview ? previewLines(rows[selected], cols - listWidth - 3, listLines) : [];
    for (let i = 0; i < listLines; i++) {
      const row = rows[top + i];
      let left = row ? rowText(row, listWidth, top + i === selected) : "";
      if (withPreview)
        left += `${" ".repeat(Math.max(0, listWidth - rowWidth(row, listWidth)))} ${DIM}│${RESET} ${preview[i] ?? ""}`;
      screen.push(left);
    }
    if (rows.length === 0) screen[1] = `${DIM}  no sessions match${RESET}`;
    const status = source.status?.text();
    const footer = `${status === undefined ? "" : `${status} · `}↑/↓ move · type to filter · Enter choose · Esc quit`;
    screen.push(`${DIM}${cutEnd(oneLineField(footer), cols)}${RESET}`);
    output.write(`${HOME}${screen.map((l) => `${l}${CLEAR_LINE}`).join("\r\n")}${CLEAR_BELOW}`);
  };

  const previewLines = (row: PickerRow | undefined, width: number, count: number): string[] => {
    if (!row || !source.preview) return [];
    const key = `${width}\0${row.value}`;
    const cached = previews.get(key);
    if (cached) return cached.slice(0, count).map((l) => cutEnd(oneLineField(l), width));
    previews.set(key, ["…"]);
    Promise.resolve(source.preview(row, width))
      .then((lines) => {
        previews.set(key, lines);
        draw();
      })
      .catch((error: unknown) => {
        previews.set(key, [`(cannot preview: ${error instanceof Error ? error.message : String(error)})`]);
        draw();
      });
    return ["…"];
  };

  source.status?.onChange(draw);

  const refilter = () => {
    const mine = ++generation;
    Promise.resolve(source.rows(query))
      .then((next) => {
        if (mine !== generation) return;
        rows = next;
        selected = 0;
        top = 0;
        draw();
      })
      .catch(() => {
        // A source that fails keeps the last rows.
      });
  };

  const onKey = (key: Key) => {
    if (key === "enter") {
      if (rows[selected]) done(rows[selected]);
      return;
    }
    if (key === "cancel") return done(undefined);
    if (key === "up") selected = Math.max(0, selected - 1);
    else if (key === "down") selected = Math.min(Math.max(0, rows.length - 1), selected + 1);
    else if (key === "page-up") selected = Math.max(0, selected - (size().lines - 2));
    else if (key === "page-down")
      selected = Math.min(Math.max(0, rows.length - 1), selected + (size().lines - 2));
    else if (key === "backspace" || key === "clear" || key === "delete-word" || typeof key === "object") {
      if (key === "backspace") query = [...query].slice(0, -1).join("");
      else if (key === "clear") query = "";
      else if (key === "delete-word") query = query.replace(/\S*\s*$/, "");
      else query += key.text;
      refilter();
      return;
    }
    draw();
  };
  const onData = (data: string) => {
    for (const key of parseKeys(data)) onKey(key);
  };
  const onSignal = () => done(undefined);
  const onResize = () => draw();

  process.on("exit", restore);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  input.setRawMode(true);
  input.setEncoding("utf8");
  input.on("data", onData);
  output.on("resize", onResize);
  output.write(ENTER);
  try {
    draw();
    refilter();
    input.resume();
    return await finished;
  } finally {
    closed = true;
    input.off("data", onData);
    output.off("resize", onResize);
    input.setRawMode(false);
    input.pause();
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
    process.off("exit", restore);
    restore();
  }
}

const ESC = "\x1b";
const ENTER = `${ESC}[?1049h${ESC}[?25l`;
const LEAVE = `${ESC}[?25h${ESC}[?1049l`;
const HOME = `${ESC}[H`;
const CLEAR_LINE = `${ESC}[K`;
const CLEAR_BELOW = `${ESC}[J`;
const BOLD = `${ESC}[1m`;
const DIM = `${ESC}[2m`;
const INVERSE = `${ESC}[7m`;
const RESET = `${ESC}[0m`;
const COLOR = { dim: DIM, cyan: `${ESC}[36m`, bold: BOLD, magenta: `${ESC}[35m` } as const;

const pad = (text: string, width: number) => " ".repeat(Math.max(0, width - textWidth(text)));

/** The cells of a row, safe and cut to fit `width` (the marker column included). */
function fittedCells(row: PickerRow, width: number): { text: string; color?: keyof typeof COLOR }[] {
  let room = width - 2;
  const out: { text: string; color?: keyof typeof COLOR }[] = [];
  for (const cell of row.cells) {
    if (room <= 0) break;
    const text = cutEnd(oneLineField(cell.text), room);
    out.push({ text, ...(cell.color ? { color: cell.color } : {}) });
    room -= textWidth(text) + 2;
  }
  return out;
}

function rowWidth(row: PickerRow | undefined, width: number): number {
  if (!row) return 0;
  const cells = fittedCells(row, width);
  return 2 + cells.reduce((n, c) => n + textWidth(c.text), 0) + 2 * Math.max(0, cells.length - 1);
}

function rowText(row: PickerRow, width: number, selected: boolean): string {
  const cells = fittedCells(row, width);
  if (selected) return `${INVERSE}${BOLD}> ${cells.map((c) => c.text).join("  ")}${RESET}`;
  return `  ${cells.map((c) => (c.color ? `${COLOR[c.color]}${c.text}${RESET}` : c.text)).join("  ")}`;
}

export type Key =
  | "up"
  | "down"
  | "page-up"
  | "page-down"
  | "enter"
  | "cancel"
  | "backspace"
  | "clear"
  | "delete-word"
  | { text: string };

const SEQUENCES: [string, Key][] = [
  ["\x1b[A", "up"],
  ["\x1bOA", "up"],
  ["\x1b[B", "down"],
  ["\x1bOB", "down"],
  ["\x1b[5~", "page-up"],
  ["\x1b[6~", "page-down"],
];

/** The keys in one read of raw input (an unknown escape sequence is skipped). */
export function parseKeys(data: string): Key[] {
  const keys: Key[] = [];
  let text = "";
  const flush = () => {
    if (text !== "") keys.push({ text });
    text = "";
  };
  for (let i = 0; i < data.length; ) {
    const rest = data.slice(i);
    const known = SEQUENCES.find(([seq]) => rest.startsWith(seq));
    if (known) {
      flush();
      keys.push(known[1]);
      i += known[0].length;
      continue;
    }
    const char = data[i] as string;
    if (char === ESC) {
      flush();
      // A CSI or SS3 sequence we do not use, else Esc itself.
      const csi = /^\x1b(\[[0-9;?]*[ -/]*[@-~]|O.)/.exec(rest);
      if (csi) i += csi[0].length;
      else {
        keys.push("cancel");
        i++;
      }
      continue;
    }
    const code = char.charCodeAt(0);
    const control: Record<number, Key> = {
      3: "cancel",
      13: "enter",
      10: "enter",
      14: "down",
      16: "up",
      127: "backspace",
      8: "backspace",
      21: "clear",
      23: "delete-word",
    };
    if (control[code] !== undefined) {
      flush();
      keys.push(control[code] as Key);
    } else if (code >= 0x20) text += char;
    i++;
  }
  flush();
  return keys;
}
