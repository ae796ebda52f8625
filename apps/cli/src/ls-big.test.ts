/**
 * `ls` lists a valid session whose message texts total more than V8's longest string (~512M
 * characters; issue 37, finding 10): the listing streams the file, and the texts past that
 * length are left out of its search text, not the session out of the list. The file is
 * written at `PI_SESSION_BIG_TEST_MB` (620 in CI: over the limit; 32 by default, the same path
 * at a size a laptop writes in a moment). In-process through `runCli`.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCaptured } from "../test/in-process.js";

const home = mkdtempSync(join(tmpdir(), "pi-session-ls-big-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env = { XDG_CACHE_HOME: join(home, "cache"), HOME: home, TZ: "UTC" };
  const r = await runCaptured(args, { env, cwd: home });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe("ls and a session beyond V8's string limit", () => {
  it("lists it, with and without the listing cache (620 MB in CI)", {
    tags: ["big-file"],
    timeout: 600_000,
  }, async () => {
    const mb = Number(process.env.PI_SESSION_BIG_TEST_MB ?? (process.env.CI ? "620" : "32"));
    const root = join(home, "sessions");
    const dir = join(root, "--home-big--");
    mkdirSync(dir, { recursive: true });
    const id = "0199bbbb-0000-7000-8000-000000000001";
    const path = join(dir, `2026-05-01T00-00-00-000Z_${id}.jsonl`);
    const header = {
      type: "session",
      version: 3,
      id,
      timestamp: "2026-05-01T00:00:00.000Z",
      cwd: "/home/big",
    };
    const text = "x".repeat(1024 * 1024 - 200);
    const fd = openSync(path, "w");
    let lines = 0;
    try {
      writeSync(fd, `${JSON.stringify(header)}\n`);
      let parent: string | null = null;
      while (lines * (1024 * 1024 - 100) < mb * 1024 * 1024) {
        const entryId = `e${String(lines).padStart(7, "0")}`;
        const entry = {
          type: "message",
          id: entryId,
          parentId: parent,
          timestamp: "2026-05-01T00:00:01.000Z",
          message: { role: "user", content: text, timestamp: 1 },
        };
        writeSync(fd, `${JSON.stringify(entry)}\n`);
        parent = entryId;
        lines++;
      }
    } finally {
      closeSync(fd);
    }
    expect(statSync(path).size).toBeGreaterThan(mb * 1024 * 1024);
    for (const cache of [[], ["--no-cache"]]) {
      const r = await run(["ls", "--all", "--json", "--session-dir", root, ...cache]);
      expect(r.err).not.toMatch(/Invalid string length/);
      expect(r.code, r.err).toBe(0);
      const listed = JSON.parse(r.out) as { id: string; messageCount: number }[];
      expect(listed.map((s) => [s.id, s.messageCount])).toEqual([[id, lines]]);
    }
    rmSync(path);
  });
});
