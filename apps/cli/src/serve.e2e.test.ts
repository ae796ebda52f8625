/**
 * End-to-end tests of `pi-session serve`: the built binary prints its URL (the token in its fragment) on
 * stdout, answers it, refuses a request without the token, warns when `--host` reaches beyond
 * this machine, exits 2 for a bad `--port`, and exits 0 on SIGINT and on SIGTERM; it searches in a
 * search thread (the bundle ships its script) that sees what is appended to a session, and makes
 * the usage charts there.
 * Build first: `npx turbo run build --filter=@pi-session/cli...`.
 * @module-tag processes
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const BIN = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist", "pi-session.cjs");

let home: string;
let sessions: string;
let file: string;
const ID = "aaaa2222-0000-4000-8000-000000000001";

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "pi-session-serve-"));
  sessions = join(home, "sessions");
  const dir = join(sessions, "--work-app--");
  mkdirSync(dir, { recursive: true });
  file = join(dir, `2026-03-01T10-00-00-000Z_${ID}.jsonl`);
  writeFileSync(
    file,
    `${JSON.stringify({ type: "session", version: 3, id: ID, timestamp: "2026-03-01T10:00:00.000Z", cwd: "/work/app" })}\n${JSON.stringify({ type: "message", id: "m1", parentId: null, timestamp: "2026-03-01T10:00:01.000Z", message: { role: "user", content: "hello serve", timestamp: 1772359201000 } })}\n`,
  );
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

const env = () => ({ ...process.env, XDG_CACHE_HOME: join(home, "cache"), NO_COLOR: "1", HOME: home });

/** Starts `serve`, resolves with the child and the first stdout line (the URL). */
function serve(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, "serve", "--session-dir", sessions, ...args], {
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolveUrl, reject) => {
    let out = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolveUrl({ child, url: out.slice(0, nl), stderr: () => err });
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code} before printing its URL: ${err}`)));
  });
}

/** The origin of a printed URL, and the header that carries its token (as the page sends it). */
function served(url: string): { origin: string; auth: Record<string, string> } {
  const at = url.indexOf("/#token=");
  return { origin: url.slice(0, at), auth: { authorization: `Bearer ${url.slice(at + "/#token=".length)}` } };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => child.on("exit", (code) => r(code)));
}

describe("pi-session serve", () => {
  it("prints the URL with its token, answers it, refuses without it, and exits 0 on SIGINT", async () => {
    const { child, url, stderr } = await serve(["--port", "0"]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{43}$/);
    const { origin, auth } = served(url);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("set-cookie")).toBeNull();
    const list = await fetch(`${origin}/api/sessions`, { headers: auth });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { sessions: { id: string }[] };
    expect(body.sessions.map((s) => s.id)).toEqual([ID]);
    expect((await fetch(`${origin}/api/sessions`)).status).toBe(401);
    expect(stderr()).toContain("serving 1 session from");
    const done = exited(child);
    child.kill("SIGINT");
    expect(await done).toBe(0);
  });

  it("searches in a search thread, which sees what is appended", async () => {
    const { child, url } = await serve([]);
    const { origin, auth } = served(url);
    const get = async (path: string) => (await fetch(origin + path, { headers: auth })).json();
    const info = (await get("/api/info")) as { search: { threads: number } };
    expect(info.search.threads).toBeGreaterThanOrEqual(1);
    const keys = async (q: string) =>
      ((await get(`/api/search?q=${encodeURIComponent(q)}`)) as { sessions: { key: string }[] }).sessions.map(
        (s) => s.key,
      );
    expect(await keys("hello")).toEqual([ID]);
    expect(await keys("xylophone")).toEqual([]);
    appendFileSync(
      file,
      `${JSON.stringify({ type: "message", id: "m2", parentId: "m1", timestamp: "2026-03-01T10:00:02.000Z", message: { role: "user", content: "xylophone later", timestamp: 1772359202000 } })}\n`,
    );
    await vi.waitFor(async () => expect(await keys("xylophone")).toEqual([ID]), {
      timeout: 30_000,
      interval: 200,
    });
    const after = (await get("/api/info")) as { search: { threads: number; ran: number } };
    expect(after.search.threads).toBe(info.search.threads);
    expect(after.search.ran).toBeGreaterThanOrEqual(3);
    const done = exited(child);
    child.kill("SIGINT");
    expect(await done).toBe(0);
  });

  it("makes the usage charts in the search thread: each chart's totals are the usage written", async () => {
    const id = "aaaa2222-0000-4000-8000-000000000002";
    const dir = join(sessions, "--work-usage--");
    mkdirSync(dir, { recursive: true });
    const usage = {
      input: 100,
      output: 50,
      cacheRead: 1000,
      cacheWrite: 10,
      totalTokens: 1160,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.25 },
    };
    const lines = [
      { type: "session", version: 3, id, timestamp: "2026-03-02T10:00:00.000Z", cwd: "/work/usage" },
      {
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: "2026-03-02T10:00:01.000Z",
        message: { role: "user", content: "count me", timestamp: 1772445601000 },
      },
      {
        type: "message",
        id: "a1",
        parentId: "u1",
        timestamp: "2026-03-02T10:00:02.000Z",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "counted" }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage,
          stopReason: "stop",
          timestamp: 1772445602000,
        },
      },
    ];
    writeFileSync(
      join(dir, `2026-03-02T10-00-00-000Z_${id}.jsonl`),
      `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
    );
    const { child, url } = await serve([]);
    const { origin, auth } = served(url);
    const get = async (path: string) => (await fetch(origin + path, { headers: auth })).json();
    for (const period of ["day", "week", "month"])
      for (const split of ["model", "project"]) {
        const chart = (await get(`/api/usage?period=${period}&split=${split}`)) as {
          totals: { totalTokens: number; records: number; cost: number };
          series: { key: string; tokens: number[] }[];
        };
        expect(chart.totals.records).toBe(1);
        expect(chart.totals.totalTokens).toBe(1160);
        expect(chart.totals.cost).toBeCloseTo(0.25, 9);
        expect(chart.series.map((s) => s.tokens.reduce((a, b) => a + b, 0))).toEqual([1160]);
      }
    const info = (await get("/api/info")) as { search: { threads: number; usageMs: number } };
    expect(info.search.threads).toBeGreaterThanOrEqual(1);
    // Measured by the thread that made them (the server's own thread does not count it).
    expect(info.search.usageMs).toBeGreaterThan(0);
    const done = exited(child);
    child.kill("SIGINT");
    expect(await done).toBe(0);
  });

  it("warns when --host listens beyond this machine, and exits 0 on SIGTERM", async () => {
    const { child, url, stderr } = await serve(["--host", "0.0.0.0"]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=/);
    expect(stderr()).toContain("warning: listening on 0.0.0.0");
    const done = exited(child);
    child.kill("SIGTERM");
    expect(await done).toBe(0);
  });

  it("a bad --port is a usage error", () => {
    for (const port of ["abc", "70000", "-1"]) {
      const r = spawnSync(process.execPath, [BIN, "serve", "--port", port, "--session-dir", sessions], {
        env: env(),
        encoding: "utf8",
      });
      expect(r.status, port).toBe(2);
      expect(r.stderr).toContain("--port");
    }
  });
});
