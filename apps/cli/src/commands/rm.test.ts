/**
 * `rm` in-process (through `runCli`): the session goes to the trash or is deleted together with
 * its companion files (backups and sidecars holding its content), and both are reported.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../program.js";
import { COMMANDS } from "./index.js";

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SESSION = "2026-11-02T09-12-20-000Z_019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f.jsonl";
const HEADER = `${JSON.stringify({ type: "session", version: 3, id: "019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f", timestamp: "2026-11-02T09:12:20.000Z", cwd: "/p" })}\n`;
const COMPANIONS = [".bak-2026-11-02T09-30-00-000Z", ".removed-2026-11-02T09-31-00-000Z", ".v2.bak"];

function setup(withTrash: boolean): { home: string; dir: string; file: string; dataHome: string } {
  const home = mkdtempSync(join(tmpdir(), "pi-session-rm-"));
  made.push(home);
  const dir = join(home, ".pi", "agent", "sessions", "--p--");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, SESSION);
  writeFileSync(file, HEADER);
  for (const suffix of COMPANIONS) writeFileSync(`${file}${suffix}`, HEADER);
  // Not a companion: never touched.
  writeFileSync(`${file}.notes`, "mine\n");
  const dataHome = join(home, "data");
  if (withTrash) mkdirSync(join(dataHome, "Trash"), { recursive: true });
  return { home, dir, file, dataHome };
}

async function rm(home: string, dataHome: string, args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli({
    argv: ["rm", ...args],
    env: {
      HOME: home,
      XDG_DATA_HOME: dataHome,
      PI_CODING_AGENT_DIR: join(home, ".pi", "agent"),
      NO_COLOR: "1",
    },
    cwd: home,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdinIsTTY: false,
    prompt: async () => "n",
    commands: COMMANDS,
  });
  return { code, stdout, stderr };
}

describe("rm and the session's companion files", () => {
  it("trashes them with the session and reports them (--json)", async () => {
    const { home, dir, file, dataHome } = setup(true);
    const r = await rm(home, dataHome, [file, "--yes", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const trashFiles = join(dataHome, "Trash", "files");
    expect(out.removed).toEqual([
      {
        path: file,
        method: "trash",
        trashPath: join(trashFiles, SESSION),
        companions: COMPANIONS.map((s) => ({
          path: `${file}${s}`,
          trashPath: join(trashFiles, `${SESSION}${s}`),
        })),
      },
    ]);
    expect(readdirSync(dir)).toEqual([`${SESSION}.notes`]);
    expect(readdirSync(join(dataHome, "Trash", "info")).length).toBe(1 + COMPANIONS.length);
    expect(readFileSync(join(trashFiles, `${SESSION}.v2.bak`), "utf8")).toBe(HEADER);
  });

  it("deletes them where there is no trash, and says so", async () => {
    const { home, dir, file, dataHome } = setup(false);
    const r = await rm(home, dataHome, [file, "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`deleted ${file}\n`);
    for (const s of COMPANIONS) expect(r.stdout).toContain(`  deleted ${file}${s}\n`);
    expect(readdirSync(dir)).toEqual([`${SESSION}.notes`]);
    expect(existsSync(file)).toBe(false);
  });

  it("leaves them with --keep-companions", async () => {
    const { home, dir, file, dataHome } = setup(false);
    const r = await rm(home, dataHome, [file, "--yes", "--keep-companions"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`deleted ${file}\n`);
    expect(readdirSync(dir).sort()).toEqual(
      [...COMPANIONS.map((s) => `${SESSION}${s}`), `${SESSION}.notes`].sort(),
    );
  });
});
