/**
 * Finding sessions in a flat custom directory by their header's cwd (`list`, `continueRecent`,
 * `findById`): one rule for all, pi's `sessionCwdMatches` (node-store's `headerCwdMatches`): a
 * non-empty cwd that resolves, as pi's `resolvePath` does, to the directory asked for.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "pi-sdk-dirs-"));
const cacheHome = mkdtempSync(join(tmpdir(), "pi-sdk-dirs-cache-"));
process.env.XDG_CACHE_HOME = cacheHome;
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(cacheHome, { recursive: true, force: true });
});

/** A session file with a header of `cwd` and one user message, named to sort by `name`. */
function session(name: string, id: string, cwd: string): string {
  const path = join(dir, `${name}_${id}.jsonl`);
  const header = { type: "session", version: 3, id, timestamp: "2025-01-01T00:00:00.000Z", cwd };
  const message = {
    type: "message",
    id: "m1",
    parentId: null,
    timestamp: "2025-01-01T00:00:01.000Z",
    message: { role: "user", content: `in ${cwd}`, timestamp: 1 },
  };
  writeFileSync(path, `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
  return path;
}

describe("a flat directory filtered by header cwd", () => {
  const project = join(homedir(), "pi-sdk-dirs-project");

  it("a header cwd with ~ names the directory it resolves to (as pi's resolvePath reads it)", async () => {
    const path = session("2025-01-01T00-00-00-000Z", "tilde-1", "~/pi-sdk-dirs-project");
    expect((await SessionManager.list(project, dir)).map((s) => s.path)).toEqual([path]);
    expect(SessionManager.findById(project, "tilde-1", dir)).toBe(path);
    expect(SessionManager.continueRecent(project, dir).getSessionFile()).toBe(path);
  });

  it("a header cwd that cannot be resolved matches nothing, and the search goes on", () => {
    session("2025-01-02T00-00-00-000Z", "same-id", "file://host/elsewhere");
    const good = session("2025-01-03T00-00-00-000Z", "same-id", "/pi-sdk-dirs/other");
    expect(SessionManager.findById("/pi-sdk-dirs/other", "same-id", dir)).toBe(good);
    expect(SessionManager.findById("/pi-sdk-dirs/none", "same-id", dir)).toBeUndefined();
  });
});
