/**
 * Differential test of session listing: pi 1.6.0's `SessionManager.list` / `listAll` against
 * our SDK's and `@pi-session/node-store`'s, on a copy of `examples/sessions/` and on generated
 * stores (v1/v2/v3 sessions with faults, plus files that are not sessions). Every
 * `SessionInfo` field and the order must be the same. Our listing is run twice (the second
 * time answers from its metadata cache, which must not change anything).
 */
import { cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listAllSessions, listSessionDir, listSessions } from "@pi-session/node-store";
import { SessionManager as OurSessionManager } from "@pi-session/sdk";
import {
  arbSessionV1,
  arbSessionV2,
  arbSessionV3,
  examplesDir,
  fcOptions,
  tempDir,
  toJsonl,
} from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PiSessionInfo, pi } from "./pi.js";

const TIMEOUT = 60_000;

// pi's default root is `$PI_CODING_AGENT_DIR/sessions`; ours reads the same variable. The
// metadata cache of ours goes to a throw-away `XDG_CACHE_HOME`.
const agent = tempDir("conf-agent-");
const cache = tempDir("conf-cache-");
const saved = { agent: process.env.PI_CODING_AGENT_DIR, cache: process.env.XDG_CACHE_HOME };
beforeAll(() => {
  process.env.PI_CODING_AGENT_DIR = agent.path;
  process.env.XDG_CACHE_HOME = cache.path;
  cpSync(examplesDir(), join(agent.path, "sessions"), { recursive: true });
});
afterAll(() => {
  for (const [k, v] of [
    ["PI_CODING_AGENT_DIR", saved.agent],
    ["XDG_CACHE_HOME", saved.cache],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  agent.cleanup();
  cache.cleanup();
});

type Lister = () => Promise<PiSessionInfo[]>;

/**
 * The infos with keys whose value is `undefined` removed: pi always sets `name` and
 * `parentSessionPath` (often to `undefined`), ours leaves them out. That key-shape difference
 * is checked on its own by the test "SessionInfo has pi's keys" below; here the values are compared.
 */
function values(infos: PiSessionInfo[]): PiSessionInfo[] {
  return infos.map(
    (info) => Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as PiSessionInfo,
  );
}

/** pi's result, then each of ours twice (fresh, then from the cache), must be equal. */
async function same(piList: Lister, ...ourLists: Lister[]): Promise<PiSessionInfo[]> {
  const expected = await piList();
  for (const [i, list] of ourLists.entries()) {
    expect(values(await list()), `lister #${i}, first run`).toStrictEqual(values(expected));
    expect(values(await list()), `lister #${i}, second run (cache)`).toStrictEqual(values(expected));
  }
  return expected;
}

const ourSdk = OurSessionManager as unknown as {
  list(cwd: string, sessionDir?: string): Promise<PiSessionInfo[]>;
  listAll(sessionDir?: string): Promise<PiSessionInfo[]>;
};

describe("listing vs pi 1.6.0", () => {
  it("SessionInfo has pi's keys: `name` and `parentSessionPath` are present even when undefined", async () => {
    const dir = join(agent.path, "sessions", "--home-dev-projects-cli-tool--");
    const keys = (infos: PiSessionInfo[]) => infos.map((info) => Object.keys(info).sort());
    const expected = keys(await pi.SessionManager.listAll(dir));
    expect(expected[0]).toContain("name");
    expect(keys(await ourSdk.listAll(dir))).toEqual(expected);
    expect(keys((await listSessionDir(dir)) as PiSessionInfo[])).toEqual(expected);
  });

  it("a file whose header has no string id is listed as pi lists it", async () => {
    // pi's listing only checks `type: "session"` on the first JSON line; it lists such a file
    // with that `id` (undefined, 7), an invalid `created` date and the file's mtime as `modified`.
    const store = tempDir("conf-noid-");
    try {
      writeFileSync(join(store.path, "2025-01-01T00-00-00-000Z_noid.jsonl"), '{"type":"session"}\n');
      writeFileSync(join(store.path, "2025-01-01T00-00-00-000Z_numid.jsonl"), '{"type":"session","id":7}\n');
      await same(
        () => pi.SessionManager.listAll(store.path),
        () => ourSdk.listAll(store.path),
        () => listSessionDir(store.path) as Promise<PiSessionInfo[]>,
      );
    } finally {
      store.cleanup();
    }
  });

  it(
    "examples/sessions as the default root: listAll() and list(cwd)",
    async () => {
      const root = join(agent.path, "sessions");
      const all = await same(
        () => pi.SessionManager.listAll(),
        () => ourSdk.listAll(),
        () => listAllSessions(root, { layout: "per-cwd" }) as Promise<PiSessionInfo[]>,
      );
      expect(all.length).toBe(4);
      for (const cwd of ["/home/dev/projects/webapp", "/home/dev/projects/cli-tool", "/nowhere"]) {
        await same(
          () => pi.SessionManager.list(cwd),
          () => ourSdk.list(cwd),
          () => listSessions(cwd) as Promise<PiSessionInfo[]>,
        );
      }
    },
    TIMEOUT,
  );

  it(
    "examples/sessions directories as custom session dirs: listAll(dir) and list(cwd, dir)",
    async () => {
      const root = join(agent.path, "sessions");
      for (const name of [...readdirSync(root), "missing-dir"]) {
        const dir = join(root, name);
        await same(
          () => pi.SessionManager.listAll(dir),
          () => ourSdk.listAll(dir),
          () => listSessionDir(dir) as Promise<PiSessionInfo[]>,
        );
        for (const cwd of ["/home/dev/projects/webapp", "/home/dev/projects/cli-tool"]) {
          await same(
            () => pi.SessionManager.list(cwd, dir),
            () => ourSdk.list(cwd, dir),
            () => listSessions(cwd, { sessionDir: dir }) as Promise<PiSessionInfo[]>,
          );
        }
      }
    },
    TIMEOUT,
  );

  it(
    "generated stores: sessions of every version (with faults) and files that are not sessions",
    async () => {
      const arbSession = fc.oneof(
        arbSessionV3({ maxEntries: 12, faults: true }),
        arbSessionV3({ maxEntries: 12 }),
        arbSessionV2({ maxEntries: 12 }),
        arbSessionV1({ maxEntries: 12 }),
      );
      // A header without an id has its own named test above.
      const arbJunk = fc.constantFrom(
        "",
        "\n",
        "not json\n",
        '{"type":"message"}\n',
        "[1]\n",
        '{"type":"session","id":"bad-time","timestamp":"yesterday"}\n',
        '{"type":"session","id":"no-time"}\n{"type":"message","message":{"role":"user","content":"hi"}}\n',
      );
      const arbStore = fc.record({
        sessions: fc.array(arbSession, { minLength: 1, maxLength: 4 }),
        junk: fc.array(arbJunk, { maxLength: 2 }),
      });
      let run = 0;
      const store = tempDir("conf-store-");
      try {
        await fc.assert(
          fc.asyncProperty(arbStore, async ({ sessions, junk }) => {
            const dir = join(store.path, `run-${run++}`);
            mkdirSync(dir);
            sessions.forEach((s, i) => {
              const stamp = s.header.timestamp.replace(/[:.]/g, "-");
              writeFileSync(join(dir, `${stamp}_${i}-${s.header.id}.jsonl`), toJsonl(s));
            });
            for (const [i, text] of junk.entries()) {
              writeFileSync(join(dir, `2025-01-01T00-00-00-000Z_junk-${i}.jsonl`), text);
            }
            await same(
              () => pi.SessionManager.listAll(dir),
              () => ourSdk.listAll(dir),
              () => listSessionDir(dir) as Promise<PiSessionInfo[]>,
            );
            const cwd = sessions[0]?.header.cwd ?? "/home/user/project";
            await same(
              () => pi.SessionManager.list(cwd, dir),
              () => ourSdk.list(cwd, dir),
              () => listSessions(cwd, { sessionDir: dir }) as Promise<PiSessionInfo[]>,
            );
          }),
          fcOptions(),
        );
      } finally {
        store.cleanup();
      }
    },
    TIMEOUT,
  );
});
