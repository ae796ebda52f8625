import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type StoreWatch, watchStore } from "./store-watch.js";

const dirs: string[] = [];
const watches: StoreWatch[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) w.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-watch-"));
  dirs.push(dir);
  return dir;
}

/** Resolves once `count()` has grown past `from` (polls; the test's timeout bounds it). */
async function grows(count: () => number, from: number): Promise<void> {
  while (count() <= from) await new Promise((r) => setTimeout(r, 10));
}

describe("watchStore", () => {
  it("calls onChange for an append in a project directory and for a new project directory", async () => {
    const root = tempRoot();
    mkdirSync(join(root, "--a--"));
    const file = join(root, "--a--", "s.jsonl");
    writeFileSync(file, "{}\n");
    let calls = 0;
    const w = watchStore(root, { onChange: () => calls++, pollMs: 0, debounceMs: 5 });
    watches.push(w);
    expect(w.mode).toBe("watch");
    expect(w.watched).toContain(join(root, "--a--"));
    appendFileSync(file, "{}\n");
    await grows(() => calls, 0);
    const before = calls;
    mkdirSync(join(root, "--b--"));
    await grows(() => calls, before);
    // The new directory is watched once the root's event is seen.
    while (!w.watched.includes(join(root, "--b--"))) await new Promise((r) => setTimeout(r, 10));
    const seen = calls;
    writeFileSync(join(root, "--b--", "t.jsonl"), "{}\n");
    await grows(() => calls, seen);
  });

  it("coalesces a burst of events into few calls", async () => {
    const root = tempRoot();
    const file = join(root, "s.jsonl");
    writeFileSync(file, "");
    let calls = 0;
    const w = watchStore(root, { onChange: () => calls++, pollMs: 0, debounceMs: 200 });
    watches.push(w);
    for (let i = 0; i < 50; i++) appendFileSync(file, "{}\n");
    await grows(() => calls, 0);
    expect(calls).toBeLessThan(50);
  });

  it("polls when asked to (or when watching is impossible), also before the root exists", async () => {
    const root = join(tempRoot(), "not-yet");
    let calls = 0;
    const w = watchStore(root, { onChange: () => calls++, pollMs: 20, debounceMs: 1, pollOnly: true });
    watches.push(w);
    expect(w.mode).toBe("poll");
    await grows(() => calls, 2);
    const missing = watchStore(root, { onChange: () => {}, pollMs: 0 });
    watches.push(missing);
    expect(missing.mode).toBe("poll");
  });

  it("while nothing is watched, looks at the fallback rate, not every pollMs", async () => {
    const root = tempRoot();
    let calls = 0;
    const w = watchStore(root, {
      onChange: () => calls++,
      pollMs: 60_000,
      fallbackPollMs: 10,
      debounceMs: 1,
      pollOnly: true,
    });
    watches.push(w);
    await grows(() => calls, 3);
  });

  it("stops calling after close", async () => {
    const root = tempRoot();
    let calls = 0;
    const w = watchStore(root, { onChange: () => calls++, pollMs: 5, debounceMs: 1 });
    await grows(() => calls, 0);
    w.close();
    const after = calls;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(after);
    expect(w.watched).toEqual([]);
  });
});
