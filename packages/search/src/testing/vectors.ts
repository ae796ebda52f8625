/**
 * Test vectors of the session database: a fixed store, indexed and searched, the results as
 * plain JSON (`vectors.test.ts` holds them; the example test reads the store). Test helper only.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSearchDatabase } from "../search.js";

const line = (v: unknown) => `${JSON.stringify(v)}\n`;

function msg(
  id: string,
  parentId: string | null,
  role: string,
  content: unknown,
  extra: Record<string, unknown> = {},
) {
  return line({
    type: "message",
    id,
    parentId,
    timestamp: "2026-03-01T10:00:00.000Z",
    message: { role, content, timestamp: 1_772_359_200_000, ...extra },
  });
}

/** Writes the vector store under `dir`; returns its root. */
export function writeVectorStore(dir: string): string {
  const root = join(dir, "sessions");
  const p = join(root, "--home-u-app--");
  mkdirSync(p, { recursive: true });
  writeFileSync(
    join(p, "2026-03-01T10-00-00-000Z_aaaa.jsonl"),
    line({
      type: "session",
      version: 3,
      id: "aaaa",
      timestamp: "2026-03-01T10:00:00.000Z",
      cwd: "/home/u/app",
    }) +
      msg("a1", null, "user", "where did we fix the parser timeout?") +
      msg(
        "a2",
        "a1",
        "assistant",
        [
          { type: "text", text: "In src/auth.ts: 日本語のテスト" },
          { type: "toolCall", id: "t1", name: "read", arguments: { path: "src/auth.ts" } },
        ],
        {
          provider: "p",
          model: "m",
          usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { total: 0.5 } },
        },
      ) +
      msg(
        "a3",
        "a2",
        "toolResult",
        [{ type: "text", text: "const x = buf.indexOf(0x0a) // getAuthToken()" }],
        {
          toolName: "read",
          toolCallId: "t1",
          isError: true,
        },
      ) +
      msg("a4", "a1", "user", "parsing on another branch"),
  );
  const fork = join(root, "--home-u-app--", "2026-03-02T10-00-00-000Z_bbbb.jsonl");
  writeFileSync(
    fork,
    line({
      type: "session",
      version: 3,
      id: "bbbb",
      timestamp: "2026-03-02T10:00:00.000Z",
      cwd: "/home/u/app/sub",
      parentSession: "x",
    }) + msg("b1", null, "user", "Timeouts again 東京"),
  );
  appendFileSync(
    fork,
    line({
      type: "session_info",
      id: "b2",
      parentId: "b1",
      timestamp: "2026-03-02T10:01:00.000Z",
      name: "named one",
    }),
  );
  return root;
}

const QUERIES = [
  "parser",
  "Timeout",
  "AuthToken",
  "timeo",
  '"auth.ts"',
  "日本",
  "東京",
  "re:indexOf\\(",
  "parsing -timeout",
  "buf.indexOf",
];

/** Every query's hits (path tail, line, branch) and the stats totals. */
export async function runVectors(dir: string): Promise<unknown> {
  const root = writeVectorStore(dir);
  const db = await openSearchDatabase({ root, cacheDir: join(dir, "cache") });
  await db.sync();
  const out: Record<string, unknown> = { backend: db.backend };
  for (const q of QUERIES) {
    const r = await db.search(q, { limit: 100, hitsPerSession: 100 });
    out[q] = r.sessions.map((s) => [
      s.path.slice(root.length),
      s.hits.map((h) => [h.line, h.onBranch, h.snippet?.text]),
    ]);
  }
  out.filtered = (
    await db.search("timeout", { filters: { errored: true, projects: ["/home/u/app"] } })
  ).sessions.length;
  out.named = (await db.search("again", { filters: { named: true } })).sessions.length;
  // Paths: equal, or ending in /<path>, as written or resolved against the cwd; models alike.
  out.files = {} as Record<string, number>;
  for (const file of [
    "src/auth.ts",
    "auth.ts",
    "/home/u/app/src/auth.ts",
    "app/src/auth.ts",
    "th.ts",
    "uth.ts",
  ])
    (out.files as Record<string, number>)[file] = (
      await db.search("parser", { filters: { file } })
    ).sessions.length;
  out.models = {} as Record<string, number>;
  for (const model of ["p/m", "m", "x/m", "p"])
    (out.models as Record<string, number>)[model] = (
      await db.search("parser", { filters: { model } })
    ).sessions.length;
  out.tools = (await db.search("parser", { filters: { tool: "read" } })).sessions.length;
  out.stats = (await db.stats({ by: "model" })).totals;
  db.close();
  return out;
}
