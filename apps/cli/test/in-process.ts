/**
 * The CLI run in this process through `runCli`, for tests where no real terminal or child
 * process matters: a private HOME with pi's store, session files written by hand, and the
 * program's stdout and stderr collected. `columns` makes stdout a terminal that wide (tables
 * fitted, colours off unless asked).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMANDS } from "../src/commands/index.js";
import type { Stream } from "../src/io.js";
import { runCli } from "../src/program.js";
import { type SessionSpec, dirFor, line } from "./harness.js";

export interface InProcessResult {
  code: number;
  out: string;
  err: string;
}

export class InProcessHome {
  readonly home: string;
  readonly agentDir: string;
  readonly sessions: string;

  constructor(prefix = "pi-session-inproc-") {
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

  async run(
    argv: string[],
    opts: { cwd?: string; env?: Record<string, string>; columns?: number } = {},
  ): Promise<InProcessResult> {
    let out = "";
    let err = "";
    const stream = (sink: (s: string) => void, tty: boolean): Stream => ({
      write: (chunk: string) => {
        sink(chunk);
        return true;
      },
      isTTY: tty,
      ...(tty ? { columns: opts.columns } : {}),
    });
    const code = await runCli({
      argv,
      env: {
        HOME: this.home,
        PI_CODING_AGENT_DIR: this.agentDir,
        XDG_CACHE_HOME: join(this.home, ".cache"),
        TZ: "UTC",
        PI_SESSION_PROGRESS_DELAY_MS: "100000",
        NO_COLOR: "1",
        ...opts.env,
      },
      cwd: opts.cwd ?? this.home,
      stdout: stream((s) => {
        out += s;
      }, opts.columns !== undefined),
      stderr: stream((s) => {
        err += s;
      }, false),
      stdinIsTTY: false,
      prompt: async () => "",
      commands: COMMANDS,
    });
    return { code, out, err };
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}
