/**
 * The pager, as git has one: long output of a reading command (`show`, `tree`, `ls`...) goes
 * through `PI_SESSION_PAGER`, else `PAGER`, else `less -R` when it is on the PATH, and only when
 * stdout is a terminal (never on a pipe, never with `--json` or `--no-pager`: `program.ts`
 * decides). `LESS` defaults to `FRX` (and `LV` to `-c`) as git's do, so output shorter than a
 * screen just prints. An empty value or `cat` means no pager; a command that cannot be found
 * means plain output, without an error.
 *
 * {@link PagedOutput} is the stdout the command writes to: the pager starts at the first write
 * (a command that prints nothing, or only an error, never opens one). Once the pager has gone
 * (`q`), the next write throws {@link PagerClosed}, which ends the command quietly (exit 0).
 * Ctrl-C while the command still runs stops it (exit 130) and leaves the pager to the reader;
 * Ctrl-C after it is done belongs to the pager alone.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { delimiter, join } from "node:path";
import { statPath } from "@pi-session/node-store";
import type { Stream } from "./io.js";

type Env = Record<string, string | undefined>;

/** Thrown by a write after the pager has exited: the reader has seen enough. */
export class PagerClosed extends Error {
  constructor() {
    super("the pager has exited");
    this.name = "PagerClosed";
  }
}

/** Whether `name` is a file on `PATH` (or at that path, when it has a `/`). */
function findsCommand(name: string, env: Env): boolean {
  const isFile = (path: string) => {
    try {
      return statPath(path)?.kind === "file";
    } catch {
      return false;
    }
  };
  if (name.includes("/") || name.includes("\\")) return isFile(name);
  const exts = process.platform === "win32" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of (env.PATH ?? "").split(delimiter))
    if (dir !== "" && exts.some((ext) => isFile(join(dir, name + ext)))) return true;
  return false;
}

/**
 * The pager command line to run, or undefined for none: `PI_SESSION_PAGER`, `PAGER`, else
 * `less -R` when `less` is found and the terminal is not `dumb` (or unnamed: less would only
 * complain that it is "not fully functional"). A command whose program cannot be found gives none.
 */
export function pagerCommand(env: Env): string | undefined {
  const chosen = env.PI_SESSION_PAGER ?? env.PAGER;
  if (chosen === undefined && (env.TERM === undefined || env.TERM === "" || env.TERM === "dumb"))
    return undefined;
  const command = chosen === undefined ? "less -R" : chosen.trim();
  if (command === "" || command === "cat") return undefined;
  const program = command.split(/\s+/)[0] ?? "";
  // `VAR=x less`: the shell's business; trust it rather than refuse a working setting.
  if (program.includes("=")) return command;
  return findsCommand(program, env) ? command : undefined;
}

/** stdout through a pager, started at the first write (see the module header). */
export class PagedOutput implements Stream {
  readonly isTTY: boolean;
  readonly columns: number | undefined;
  /** Set when Ctrl-C stopped the command while it was still writing. */
  interrupted = false;
  private child: ChildProcess | undefined;
  private closed = false;
  private finished = false;
  private exit: Promise<void> | undefined;
  private readonly onSigint = () => {
    if (this.finished) return;
    this.interrupted = true;
    this.closed = true;
    this.child?.stdin?.end();
  };

  constructor(
    private readonly command: string,
    private readonly env: Env,
    private readonly fallback: Stream,
  ) {
    this.isTTY = fallback.isTTY === true;
    this.columns = fallback.columns;
  }

  write(chunk: string): unknown {
    if (this.closed) throw new PagerClosed();
    if (!this.child) this.start();
    const stdin = this.child?.stdin;
    if (!stdin) return this.fallback.write(chunk);
    return stdin.write(chunk);
  }

  private start(): void {
    const env = { ...this.env, LESS: this.env.LESS ?? "FRX", LV: this.env.LV ?? "-c" };
    const child = spawn(this.command, { shell: true, stdio: ["pipe", "inherit", "inherit"], env });
    this.child = child;
    this.exit = new Promise((resolve) => {
      child.on("close", () => resolve());
      child.on("error", () => resolve());
    });
    child.on("exit", () => {
      this.closed = true;
    });
    child.on("error", () => {
      this.closed = true;
    });
    // A pager that quits early closes the pipe: EPIPE is the reader saying "enough".
    child.stdin?.on("error", () => {
      this.closed = true;
    });
    process.on("SIGINT", this.onSigint);
  }

  /** Ends the pager's input and waits until the reader quits it. */
  async finish(): Promise<void> {
    this.finished = true;
    if (!this.child) return;
    this.child.stdin?.end();
    await this.exit;
    process.off("SIGINT", this.onSigint);
  }
}
