/**
 * What the CLI's tests share: a throwaway HOME with pi's store in it, session files written by
 * hand, and the program run in this process on that HOME (`runInProcess`: no build needed), or
 * the built binary spawned on pipes, on a pseudo-terminal (util-linux `script -qfec`, for one
 * run with a fixed width), in the background with its output read as it comes (for what runs
 * until stopped: `follow`), and in tmux (for what needs keys: a pager, the picker). Tests that
 * spawn the binary need a build: tag them `processes`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type InProcessResult, runInProcess } from "./in-process.js";

const here = dirname(fileURLToPath(import.meta.url));
/** The built binary (`pnpm build` first). */
export const BIN = resolve(here, "..", "dist", "pi-session.cjs");

/** Throws unless the binary is built. */
function built(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} missing: build the CLI first (pnpm build)`);
}

export const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]/g;
/** Text without the terminal's escape codes. */
export const plain = (s: string): string => s.replace(ANSI, "");

/** pi's directory name for a cwd (`/home/u/p` -> `--home-u-p--`). */
export const dirFor = (cwd: string): string => `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SessionSpec {
  id: string;
  cwd: string;
  /** ISO time of the header. */
  created: string;
  /** The entries after the header (objects, written one a line). */
  entries?: Record<string, unknown>[];
  /** The header's version (default 3). */
  version?: number;
  /** Directory under the sessions root (default: pi's directory for `cwd`). */
  dir?: string;
}

/** A v3 message entry. */
export function message(
  id: string,
  parentId: string | null,
  time: string,
  msg: Record<string, unknown>,
): Record<string, unknown> {
  return { type: "message", id, parentId, timestamp: time, message: { timestamp: Date.parse(time), ...msg } };
}

/** A linear chat of `turns` user/assistant pairs, ids `<prefix>0001`…, a minute apart from `start`. */
export function chat(prefix: string, start: string, turns: number, text = (i: number) => `message ${i}`) {
  const out: Record<string, unknown>[] = [];
  let parent: string | null = null;
  const t0 = Date.parse(start);
  for (let i = 0; i < turns * 2; i++) {
    const id = `${prefix}${String(i + 1).padStart(8 - prefix.length, "0")}`;
    const time = new Date(t0 + (i + 1) * 60_000).toISOString();
    const role = i % 2 === 0 ? "user" : "assistant";
    out.push(
      message(
        id,
        parent,
        time,
        role === "user"
          ? { role, content: text(i) }
          : {
              role,
              provider: "anthropic",
              model: "claude-sonnet",
              content: [{ type: "text", text: text(i) }],
            },
      ),
    );
    parent = id;
  }
  return out;
}

/** A HOME with `.pi/agent/sessions`, and the binary run against it. */
export class CliHome {
  readonly home: string;
  readonly agentDir: string;
  readonly sessions: string;

  constructor(prefix = "pi-session-e2e-") {
    this.home = mkdtempSync(join(tmpdir(), prefix));
    this.agentDir = join(this.home, ".pi", "agent");
    this.sessions = join(this.agentDir, "sessions");
    mkdirSync(this.sessions, { recursive: true });
  }

  /** Writes a session file the way pi names it; returns its path. */
  write(spec: SessionSpec): string {
    const dir = join(this.sessions, spec.dir ?? dirFor(spec.cwd));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${spec.created.replace(/[:.]/g, "-")}_${spec.id}.jsonl`);
    const header = {
      type: "session",
      version: spec.version ?? 3,
      id: spec.id,
      timestamp: spec.created,
      cwd: spec.cwd,
    };
    writeFileSync(path, [header, ...(spec.entries ?? [])].map(line).join(""));
    return path;
  }

  /** A directory under HOME (made). */
  dir(...parts: string[]): string {
    const path = join(this.home, ...parts);
    mkdirSync(path, { recursive: true });
    return path;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: process.env.PATH ?? "",
      HOME: this.home,
      PI_CODING_AGENT_DIR: this.agentDir,
      XDG_CACHE_HOME: join(this.home, ".cache"),
      TZ: "UTC",
      LANG: "C.UTF-8",
      ...extra,
    };
  }

  /** The program in this process, as the binary on pipes would run it (`in-process.ts`). */
  runInProcess(
    args: string[],
    opts: { env?: Record<string, string>; cwd?: string; input?: string; columns?: number } = {},
  ): Promise<InProcessResult> {
    return runInProcess(args, {
      env: this.env(opts.env),
      cwd: opts.cwd ?? this.home,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      ...(opts.columns !== undefined ? { columns: opts.columns } : {}),
    });
  }

  /** The binary on pipes. */
  run(args: string[], opts: { env?: Record<string, string>; cwd?: string; input?: string } = {}): Result {
    built();
    const r = spawnSync(process.execPath, [BIN, ...args], {
      env: this.env(opts.env),
      cwd: opts.cwd ?? this.home,
      encoding: "utf8",
      input: opts.input ?? "",
      maxBuffer: 256 * 1024 * 1024,
      timeout: 120_000,
    });
    if (r.error) throw r.error;
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /**
   * The binary on a pseudo-terminal `cols` wide (`script -qfec`): stdout and stderr both reach
   * the terminal; what it showed (CRLF as LF) and the exit code. `PAGER` is `cat` unless given,
   * so a long output does not wait for a key.
   */
  runTty(
    args: string[],
    opts: { env?: Record<string, string>; cols?: number; rows?: number; cwd?: string } = {},
  ): { code: number | null; out: string } {
    built();
    const command = [
      `stty cols ${opts.cols ?? 80} rows ${opts.rows ?? 40}`,
      `exec ${[process.execPath, BIN, ...args].map(quote).join(" ")}`,
    ].join("; ");
    const r = spawnSync("script", ["-qfec", command, "/dev/null"], {
      env: this.env({ PAGER: "cat", TERM: "xterm-256color", ...opts.env }),
      cwd: opts.cwd ?? this.home,
      encoding: "utf8",
      timeout: 120_000,
      maxBuffer: 256 * 1024 * 1024,
    });
    if (r.error)
      throw new Error(`util-linux \`script\` is needed for the terminal tests: ${r.error.message}`);
    return { code: r.status, out: r.stdout.replace(/\r\n/g, "\n") };
  }

  /** The binary in the background on pipes (stdin open), its output collected as it comes. */
  spawn(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Running {
    built();
    return new Running(
      spawn(process.execPath, [BIN, ...args], {
        env: this.env(opts.env),
        cwd: opts.cwd ?? this.home,
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** A process started by {@link CliHome.spawn}: its output so far, waits on it, its end. */
export class Running {
  stdout = "";
  stderr = "";
  /** The exit code once it has ended (null when a signal ended it), undefined before. */
  code: number | null | undefined = undefined;
  signal: NodeJS.Signals | null = null;

  constructor(readonly child: ChildProcess) {
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      this.stdout += chunk;
    });
    child.stderr?.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    child.on("exit", (code, signal) => {
      this.code = code;
      this.signal = signal;
    });
  }

  private last(): string {
    return `stdout:\n${this.stdout.slice(-2000)}\nstderr:\n${this.stderr.slice(-2000)}`;
  }

  /**
   * Polls until stdout after `from` characters holds `text` (a string or a pattern); returns
   * where the match ends, to wait for what comes after it. Throws with the output after
   * `timeoutMs`.
   */
  async waitForOutput(text: string | RegExp, from = 0, timeoutMs = 60_000): Promise<number> {
    const end = Date.now() + timeoutMs;
    let endedAt: number | undefined;
    for (;;) {
      const rest = this.stdout.slice(from);
      if (typeof text === "string") {
        const at = rest.indexOf(text);
        if (at >= 0) return from + at + text.length;
      } else {
        const m = text.exec(rest);
        if (m) return from + m.index + m[0].length;
      }
      // Ended: what it wrote last may still be in the pipe for a moment.
      if (this.code !== undefined) endedAt ??= Date.now();
      if (endedAt !== undefined && Date.now() - endedAt > 2000)
        throw new Error(`the process ended before ${String(text)}; ${this.last()}`);
      if (Date.now() > end) throw new Error(`timed out waiting for ${String(text)}; ${this.last()}`);
      await sleep(50);
    }
  }

  /** The exit code once it has ended (waits for it). */
  async exited(timeoutMs = 60_000): Promise<number | null> {
    const end = Date.now() + timeoutMs;
    while (this.code === undefined) {
      if (Date.now() > end) throw new Error(`the process did not end; ${this.last()}`);
      await sleep(50);
    }
    return this.code;
  }

  /** Ends it at once if it is still running (cleanup). */
  kill(): void {
    if (this.code === undefined) this.child.kill("SIGKILL");
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A tmux session `cols` x `rows` on a private server socket, running one shell command; keys
 * are sent and the screen read back, as a person would. Waits poll the screen (no timing is
 * asserted: a wait only fails after a generous limit).
 */
export class Tmux {
  private readonly socket: string;
  readonly name = "t";
  private readonly exitFile: string;

  constructor(
    private readonly cli: CliHome,
    readonly cols: number,
    readonly rows = 40,
  ) {
    this.socket = join(cli.home, `tmux-${cols}-${Math.random().toString(36).slice(2, 8)}`);
    this.exitFile = `${this.socket}.exit`;
  }

  private tmux(args: string[]): string {
    const r = spawnSync("tmux", ["-S", this.socket, ...args], { encoding: "utf8", timeout: 30_000 });
    if (r.error) throw new Error(`tmux is needed for the terminal tests: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
    return r.stdout;
  }

  /**
   * Starts `pi-session <args>` in the pane (cwd and env as the CLI home's); the command's exit
   * code is written to a file when it ends, and the pane stays open to be read.
   */
  start(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): void {
    built();
    const env = this.cli.env({ TERM: "xterm-256color", ...opts.env });
    const exports = Object.entries(env)
      .map(([k, v]) => `export ${k}=${quote(v)};`)
      .join(" ");
    // `trap : INT`: the pane's shell outlives a Ctrl-C, as an interactive one does (dash would
    // die with it), and records the command's exit code; the command gets SIGINT as usual.
    const command = `trap : INT; ${exports} cd ${quote(opts.cwd ?? this.cli.home)}; ${[process.execPath, BIN, ...args].map(quote).join(" ")}; echo $? > ${quote(this.exitFile)}; sleep 600`;
    this.tmux([
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      this.name,
      "-x",
      String(this.cols),
      "-y",
      String(this.rows),
      "sh",
      "-c",
      command,
    ]);
  }

  keys(...keys: string[]): void {
    this.tmux(["send-keys", "-t", this.name, ...keys]);
  }

  /**
   * The visible screen as text, trailing blanks cut; with `escapes`, each cell's colours and
   * attributes as the SGR codes tmux keeps for them (`capture-pane -e`); `joined`, each line
   * the terminal wrapped joined back into one (`-J`).
   */
  screen(opts: { escapes?: boolean; joined?: boolean } = {}): string {
    const flags = [...(opts.escapes ? ["-e"] : []), ...(opts.joined ? ["-J"] : [])];
    return this.tmux(["capture-pane", "-p", ...flags, "-t", this.name]).replace(/\s+$/, "");
  }

  /** Polls the screen until `test` holds; throws with the screen after `timeoutMs`. */
  async waitFor(test: (screen: string) => boolean, timeoutMs = 60_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = this.screen();
      if (test(s)) return s;
      if (Date.now() > end) throw new Error(`timed out; the screen:\n${s}`);
      await sleep(100);
    }
  }

  /** The command's exit code once it has ended (waits for it). */
  async exitCode(timeoutMs = 60_000): Promise<number> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (existsSync(this.exitFile)) {
        const text = spawnSync("cat", [this.exitFile], { encoding: "utf8" }).stdout.trim();
        if (text !== "") return Number(text);
      }
      if (Date.now() > end) throw new Error(`the command did not end; the screen:\n${this.screen()}`);
      await sleep(100);
    }
  }

  /** Whether the command is still running. */
  running(): boolean {
    return !existsSync(this.exitFile);
  }

  kill(): void {
    spawnSync("tmux", ["-S", this.socket, "kill-server"], { timeout: 30_000 });
  }
}
