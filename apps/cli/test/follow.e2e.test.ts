/**
 * End-to-end: `pi-session follow` in the background on pipes, as a person watching pi write a
 * session would use it: the branch first, then an append shows up, a branch switch and a
 * compaction are announced, a rewrite by rename is survived (nothing shown twice), `--json`
 * gives a line per entry, SIGINT ends it with 0, and so does its stdout pipe closing.
 * Waits poll the output; nothing times the process.
 * @module-tag processes
 */
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CliHome, type Running, chat, line, message } from "./harness.js";

const ID = "f0110000-0000-4000-8000-000000000001";
const PROJECT = "/work/follow-project";

let cli: CliHome;
let file: string;
const running: Running[] = [];

beforeEach(() => {
  cli = new CliHome("pi-session-follow-");
  file = cli.write({
    id: ID,
    cwd: PROJECT,
    created: "2026-03-01T10:00:00.000Z",
    entries: chat("a", "2026-03-01T10:00:00.000Z", 2, (i) => `history message ${i}`),
  });
});

afterEach(() => {
  for (const r of running.splice(0)) r.kill();
  cli.cleanup();
});

function follow(...args: string[]): Running {
  return followWith({}, ...args);
}

function followWith(env: Record<string, string>, ...args: string[]): Running {
  // A short poll too, so a missed file-system event costs little on a busy machine.
  const r = cli.spawn(["follow", ID, "--poll-ms", "200", ...args], { env });
  running.push(r);
  return r;
}

const user = (id: string, parentId: string | null, text: string) =>
  message(id, parentId, "2026-03-01T11:00:00.000Z", { role: "user", content: text });

describe("pi-session follow", () => {
  it("prints the branch, then appends, a branch switch and a compaction as they land; exits 0 on SIGINT", async () => {
    const r = follow();
    let at = await r.waitForOutput("history message 3");
    expect(r.stdout).toContain("history message 0");
    appendFileSync(file, line(user("b0000001", "a0000004", "appended while following")));
    at = await r.waitForOutput("appended while following", at);
    // A new entry under an older one: pi's /tree then a new prompt.
    appendFileSync(file, line(user("b0000002", "a0000002", "a different path")));
    at = await r.waitForOutput("branch: now following b0000002, forked from a0000002", at);
    at = await r.waitForOutput("a different path", at);
    appendFileSync(
      file,
      line({
        type: "compaction",
        id: "b0000003",
        parentId: "b0000002",
        timestamp: "2026-03-01T11:05:00.000Z",
        summary: "the summary of it all",
        firstKeptEntryId: "b0000002",
        tokensBefore: 48213,
      }),
    );
    at = await r.waitForOutput("compaction: 48,213 tokens summarized", at);
    await r.waitForOutput("the summary of it all", at);
    expect(r.stdout).not.toContain("branch: now following b0000001");
    r.child.kill("SIGINT");
    expect(await r.exited()).toBe(0);
    expect(r.stderr).toContain("following ");
  });

  it("survives the file being replaced by rename, showing only what is new", async () => {
    const r = follow();
    let at = await r.waitForOutput("history message 3");
    const temp = `${file}.tmp`;
    writeFileSync(
      temp,
      readFileSync(file, "utf8") + line(user("c0000001", "a0000004", "written by the rewrite")),
    );
    renameSync(temp, file);
    at = await r.waitForOutput("written by the rewrite", at);
    appendFileSync(file, line(user("c0000002", "c0000001", "appended after the rewrite")));
    await r.waitForOutput("appended after the rewrite", at);
    expect(r.stdout.split("history message 0").length).toBe(2);
    await waitFor(() => r.stderr.includes("replaced"));
    r.child.kill("SIGINT");
    expect(await r.exited()).toBe(0);
  });

  it("--json --no-history prints one JSON line per new entry", async () => {
    const r = follow("--json", "--no-history");
    await waitFor(() => r.stderr.includes("following "));
    appendFileSync(file, line(user("d0000001", "a0000004", "json one")));
    appendFileSync(file, line(user("d0000002", "d0000001", "json two")));
    await r.waitForOutput('"d0000002"');
    const lines = r.stdout.trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(["d0000001", "d0000002"]);
    r.child.kill("SIGINT");
    expect(await r.exited()).toBe(0);
  });

  it("sees appends by polling alone (PI_SESSION_FOLLOW_POLL_ONLY=1, a file system without events)", async () => {
    const r = followWith({ PI_SESSION_FOLLOW_POLL_ONLY: "1" });
    const at = await r.waitForOutput("history message 3");
    appendFileSync(file, line(user("f0000001", "a0000004", "seen by the timer")));
    await r.waitForOutput("seen by the timer", at);
    r.child.kill("SIGINT");
    expect(await r.exited()).toBe(0);
  });

  it("--last N starts with the last N items of the branch", async () => {
    const r = follow("--last", "1");
    await r.waitForOutput("history message 3");
    expect(r.stdout).not.toContain("history message 2");
    r.child.kill("SIGINT");
    expect(await r.exited()).toBe(0);
  });

  it("exits 0 promptly when the reader of its stdout goes away", async () => {
    const r = follow();
    await r.waitForOutput("history message 3");
    r.child.stdout?.destroy();
    // The next write finds the pipe closed; appends keep coming until the process has ended.
    let n = 0;
    while (r.code === undefined && n < 200) {
      appendFileSync(file, line(user(`e${String(n).padStart(7, "0")}`, null, `after the reader left ${n}`)));
      n++;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await r.exited()).toBe(0);
    expect(r.stderr).not.toContain("EPIPE");
  });

  it("refuses --no-history with --last, and a session that does not exist", () => {
    expect(cli.run(["follow", ID, "--no-history", "--last", "2"]).code).toBe(2);
    const missing = cli.run(["follow", "ffffffff-0000-4000-8000-000000000009"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/error:/);
  });
});

async function waitFor(test: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
