/**
 * Output helpers: data to stdout, progress, warnings and errors to stderr. The only module that
 * writes to the streams: every human line goes through `toTerminal` (control characters from
 * session content shown visibly, our own styles drawn), every JSON document through `writeJson`
 * (any depth, any size).
 *
 * Colours are decided per stream: on only when the stream is a terminal, unless `NO_COLOR` is
 * set (any non-empty value) or `--no-color` was given; `FORCE_COLOR` (non-empty, not `0`) turns
 * them on regardless, which tests use. Progress is drawn only on a terminal, never with `--json`,
 * and only once the work has taken more than about a second (`PI_SESSION_PROGRESS_DELAY_MS`).
 * Lines cut to fit a terminal are cut to `COLUMNS`, else to the terminal's width.
 */
import { writeJson } from "./json.js";
import { type Styles, createStyles, hasUnsafeInLines, oneLineField, toTerminal } from "./terminal-safe.js";

/** The styles of one stream (see `terminal-safe.ts`: they mark text, the writer draws it). */
export type Colors = Styles;

export interface Stream {
  /** False when the stream holds more than it wants (then wait for its `drain`). */
  write(chunk: string): unknown;
  /** For `drain` (Node's streams have it). */
  once?(event: "drain", listener: () => void): unknown;
  isTTY?: boolean;
  /** A terminal's width in columns. */
  columns?: number;
}

export interface IoOptions {
  stdout: Stream;
  stderr: Stream;
  env: Record<string, string | undefined>;
  /** False when `--no-color` was given. */
  color: boolean;
  json: boolean;
  /**
   * Applied to everything written on stderr (messages, warnings, errors): the run's database
   * credentials masked (`team-db.ts`'s `credentialMask`).
   */
  conceal?: ((text: string) => string) | undefined;
}

/**
 * Milliseconds of work after which a progress line appears (on a terminal);
 * `PI_SESSION_PROGRESS_DELAY_MS` sets another (0: at once).
 */
export const PROGRESS_DELAY_MS = 1000;

function progressDelay(env: Record<string, string | undefined>): number {
  const ms = Number(env.PI_SESSION_PROGRESS_DELAY_MS);
  return env.PI_SESSION_PROGRESS_DELAY_MS !== undefined && Number.isFinite(ms) && ms >= 0
    ? ms
    : PROGRESS_DELAY_MS;
}

/**
 * The width lines are cut to on a terminal: `COLUMNS` when it is a positive number (as shells
 * and `shutil` read it), else the terminal's own, else 80 (a terminal that reports none).
 */
function terminalColumns(stream: Stream, env: Record<string, string | undefined>): number {
  const fromEnv = Number(env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
}

export function colorsWanted(
  stream: Stream,
  env: Record<string, string | undefined>,
  flag: boolean,
): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "" && force !== "0") return true;
  return stream.isTTY === true && env.TERM !== "dumb";
}

export interface Progress {
  /** Report `done` of `total` units; draws at most ~10 times a second, after the delay. */
  update(done: number, total: number, label?: string): void;
  /** Report progress as a line of its own (no count to show a share of), drawn as `update` is. */
  text(line: string): void;
  /** Clears the progress line if one was drawn. */
  end(): void;
}

/**
 * What `print` writes with `console.info` (cac prints its help so), caught as text for the length
 * of the synchronous call: it goes out through an {@link Io}, to the run's stdout (in-process
 * callers give their own), not to the process's.
 */
export function consoleInfoText(print: () => void): string {
  const info = console.info;
  let text = "";
  console.info = (...parts: unknown[]) => {
    text += `${parts.join(" ")}\n`;
  };
  try {
    print();
  } finally {
    console.info = info;
  }
  return text;
}

export class Io {
  readonly out: Colors;
  readonly err: Colors;
  readonly json: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** The width of stdout when it is a terminal (for lines cut to fit; see `terminalColumns`), else undefined. */
  readonly columns: number | undefined;
  private readonly stdout: Stream;
  private readonly stderr: Stream;
  private readonly progressDelayMs: number;
  private readonly stdoutColors: boolean;
  private readonly stderrColors: boolean;
  private readonly conceal: ((text: string) => string) | undefined;

  constructor(options: IoOptions) {
    this.conceal = options.conceal;
    this.stdout = options.stdout;
    this.stderr = options.stderr;
    this.json = options.json;
    this.stdoutIsTTY = options.stdout.isTTY === true;
    this.stderrIsTTY = options.stderr.isTTY === true;
    this.columns = this.stdoutIsTTY ? terminalColumns(options.stdout, options.env) : undefined;
    this.progressDelayMs = progressDelay(options.env);
    this.stdoutColors = colorsWanted(options.stdout, options.env, options.color);
    this.stderrColors = colorsWanted(options.stderr, options.env, options.color);
    this.out = createStyles(this.stdoutColors);
    this.err = createStyles(this.stderrColors);
  }

  /** One line (or block of lines) of data on stdout, made terminal-safe. */
  line(text = ""): void {
    this.stdout.write(`${toTerminal(text, this.stdoutColors)}\n`);
  }

  /**
   * A rendered document on stdout as is (Markdown, an HTML page, JSONL lines): the renderer
   * made it terminal-safe already, so tabs and line ends are kept. Refuses text holding a
   * character a terminal acts on (a bug upstream, never session content passed through).
   */
  document(text: string): void {
    if (hasUnsafeInLines(text)) throw new Error("document output holds a raw control character");
    this.stdout.write(text);
  }

  /**
   * A rendered document in pieces (see {@link document}), written as they come: a stream that
   * is behind is waited for, so a huge export is never held in memory.
   */
  async documentChunks(chunks: Iterable<string>): Promise<void> {
    for (const chunk of chunks) {
      if (hasUnsafeInLines(chunk)) throw new Error("document output holds a raw control character");
      const once = this.stdout.once?.bind(this.stdout);
      if (this.stdout.write(chunk) === false && once !== undefined)
        await new Promise<void>((resolve) => once("drain", resolve));
    }
  }

  /** A JSON document on stdout (pretty, stable key order as given; any depth). */
  printJson(value: unknown): void {
    writeJson(value, (piece) => this.stdout.write(piece), 2);
    this.stdout.write("\n");
  }

  /** Human chatter on stderr (what was written, where the backup is), made terminal-safe. */
  info(text: string): void {
    const shown = this.conceal ? this.conceal(text) : text;
    this.stderr.write(`${toTerminal(shown, this.stderrColors)}\n`);
  }

  warn(text: string): void {
    this.info(`${this.err.yellow("warning:")} ${text}`);
  }

  error(text: string, hint?: string): void {
    this.info(`${this.err.red("error:")} ${text}`);
    if (hint) this.info(this.err.dim(hint));
  }

  /**
   * Stderr as the screen of an interactive command (`pick`), with `input` for its keys; undefined
   * unless both are terminals. What is drawn there is the command's own: it must show session
   * text only as one-line fields (`oneLineField`), as the picker does.
   */
  interactiveTerminal(
    input: NodeJS.ReadStream,
  ): { input: NodeJS.ReadStream; output: NodeJS.WriteStream } | undefined {
    const output = this.stderr as Partial<NodeJS.WriteStream>;
    if (input.isTTY !== true || output.isTTY !== true || typeof output.on !== "function") return undefined;
    return { input, output: output as NodeJS.WriteStream };
  }

  progress(label: string): Progress {
    const enabled = this.stderrIsTTY && !this.json;
    // Node's global clock, read only when a bar may be drawn: it loads perf_hooks on first use.
    const start = enabled ? performance.now() : 0;
    let lastDraw = 0;
    let drawn = false;
    const stderr = this.stderr;
    const delay = this.progressDelayMs;
    const draw = (line: string) => {
      const now = performance.now();
      if (now - start < delay || (drawn && now - lastDraw < 100)) return;
      lastDraw = now;
      drawn = true;
      // Our own control codes: return to the line's start and clear it.
      stderr.write(`\r\x1b[2K${oneLineField(line).slice(0, 200)}`);
    };
    return {
      update(done, total, detail) {
        if (!enabled) return;
        const pct = total > 0 ? Math.floor((done / total) * 100) : 0;
        draw(`${label} ${done}/${total} (${pct}%)${detail ? ` ${detail}` : ""}`);
      },
      text(line) {
        if (enabled) draw(line);
      },
      end() {
        if (drawn) stderr.write("\r\x1b[2K");
        drawn = false;
      },
    };
  }
}
