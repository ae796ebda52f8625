/**
 * The `team/*` rows: the session database on PostgreSQL (`@pi-session/postgres`, issue 24) in a
 * throw-away local cluster (the tests' helper: `initdb` + `pg_ctl` of Debian's `postgresql`,
 * `fsync=off`). Skipped, each row saying why, when no PostgreSQL is installed; `--smoke` runs
 * them on the smoke store (a few seconds).
 *
 * The bench's store is copied to a temp dir first (untimed; the rows append to it) and split
 * into five roots of whole project directories, synced as five sources:
 * - first sync: the five sources' syncs into the empty database, back to back, in the process,
 *   as MB/s of the store's bytes, against the ceiling of `COPY` (psql `\copy`) of the same bytes
 *   as lines into a one-column table;
 * - incremental sync after one appended entry: `pi-session sync` as a fresh process, end to end
 *   (node start, connect, a stat per file of that source, the one transaction), one entry
 *   appended before each run (untimed); ceiling = the same command with nothing new;
 * - search under load: 10 clients (a connection pool each) run the query list at once over
 *   the five sources; p50 and p99 of every query's latency, against one client's p50.
 */
import {
  appendFileSync,
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { openPostgresDatabase } from "@pi-session/postgres";
import { ensureStore } from "./generate.js";
import { NODE22, node22Installed, node22Path } from "./layers.js";
import { nowMs, spawnWall, summarize } from "./measure.js";
import { type Cell, fmt, isNum, MB, naRow, type Row } from "./rows.js";
import { type Ctx, generated, log, runnerOn22 } from "./setup.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, "..", "..");
const CLI = join(REPO, "apps", "cli", "dist", "pi-session.cjs");
/** The tests' cluster helper, built with the package (not published): loaded by path. */
const CLUSTER = join(REPO, "packages", "postgres", "dist", "testing", "cluster.js");

interface Cluster {
  url: string;
  psql(sql: string, database?: string): string;
  stop(): void;
}
interface ClusterModule {
  findBinDir(): string | undefined;
  startCluster(): Promise<Cluster>;
}

const SOURCES = 5;
const CLIENTS = 10;
/** Rare and common words, a phrase with a path, CJK, a regex: what people type. */
const QUERIES = [
  "parse",
  "timeout",
  '"src/auth"',
  "JSON.parse",
  "日本",
  "re:pars(e|ing)",
  "run",
  "the",
  "error",
  "config",
];

function msCellOf(samples: number[], error?: string): Cell {
  if (error) return { na: error };
  if (samples.length === 0) return { na: "not run" };
  const s = summarize(samples);
  const spread = samples.length > 1 ? ` [${fmt(s.min)}–${fmt(s.max)}]` : "";
  return { s, samples, display: `${fmt(s.median, s.median < 10 ? 1 : 0)} ms${spread}` };
}

/** The value below which `q` of the sorted samples lie (nearest rank). */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** Splits a store's project directories round-robin into `n` roots under `dir` (copies). */
function splitStore(
  root: string,
  dir: string,
  n: number,
): { roots: string[]; bytes: number; files: string[] } {
  const roots = Array.from({ length: n }, (_, i) => join(dir, `source-${i}`, "sessions"));
  for (const r of roots) mkdirSync(r, { recursive: true });
  const files: string[] = [];
  let bytes = 0;
  readdirSync(root)
    .sort()
    .forEach((project, i) => {
      const to = join(roots[i % n] as string, project);
      cpSync(join(root, project), to, { recursive: true });
      for (const name of readdirSync(to).sort())
        if (name.endsWith(".jsonl")) {
          const path = join(to, name);
          files.push(path);
          bytes += statSync(path).size;
        }
    });
  return { roots, bytes, files };
}

export async function teamScenarios(ctx: Ctx, want: (id: string) => boolean): Promise<Row[]> {
  const { z } = ctx;
  const label = `${fmt(z.store.totalBytes / MB, z.store.totalBytes < 10 * MB ? 2 : 0)} MB`;
  const ids = {
    first: `team/first sync into PostgreSQL (${label}, ${SOURCES} sources)`,
    append: `team/sync after appending one entry (${label})`,
    search: `team/search, ${CLIENTS} clients at once (${label}, ${SOURCES} sources)`,
  };
  const targets = { first: "–", append: "< 200 ms end to end", search: "–" };
  const chosen = (Object.keys(ids) as (keyof typeof ids)[]).filter((k) => want(ids[k]));
  if (chosen.length === 0) return [];
  const skip = (why: string) => chosen.map((k) => naRow(ids[k], why, targets[k]));
  if (!statSync(CLUSTER, { throwIfNoEntry: false })) return skip("packages/postgres not built");
  if (!statSync(CLI, { throwIfNoEntry: false })) return skip("CLI not built (apps/cli/dist/pi-session.cjs)");
  const helper = (await import(pathToFileURL(CLUSTER).href)) as ClusterModule;
  if (!helper.findBinDir())
    return skip("skipped: no PostgreSQL installed (initdb, pg_ctl: apt-get install postgresql)");

  const source = generated(`session store ${label}`, () => ensureStore(z.store));
  const work = mkdtempSync(join(tmpdir(), "pi-bench-team-"));
  // Readable by the server's user (psql runs as `postgres` when the bench runs as root).
  chmodSync(work, 0o755);
  let cluster: Cluster | undefined;
  const rows: Row[] = [];
  try {
    log(`- team: copying the ${label} store into ${SOURCES} roots`);
    const split = splitStore(source, work, SOURCES);
    cluster = await helper.startCluster();
    const url = cluster.url;

    // First sync: the five sources, one after the other, into the empty database.
    log(`- ${ids.first}`);
    const db = await openPostgresDatabase({ url });
    let firstMs = 0;
    let entries = 0;
    let sent = 0;
    let cpuMs = 0;
    try {
      for (let i = 0; i < SOURCES; i++) {
        const cpu0 = process.cpuUsage();
        const t0 = nowMs();
        const s = await db.sync({ root: split.roots[i] as string, source: `source-${i}` });
        firstMs += nowMs() - t0;
        const cpu = process.cpuUsage(cpu0);
        cpuMs += (cpu.user + cpu.system) / 1000;
        entries += s.entriesSent;
        sent += s.bytesSent;
      }
    } finally {
      await db.close();
    }
    // The ceiling: the same bytes as lines into a one-column table by COPY (psql's \copy).
    // A script that prints every file (the paths are ours: the temp dir's, no quote in them).
    const script = join(work, "cat-all.sh");
    writeFileSync(script, `cat ${split.files.map((f) => `'${f}'`).join(" ")}\n`);
    cluster.psql("CREATE TABLE bench_copy (line text)");
    const t0 = nowMs();
    // CSV with quote and delimiter bytes JSON never holds raw: each line is one value, as is.
    cluster.psql(
      `\\copy bench_copy FROM PROGRAM 'sh ${script}' WITH (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')`,
    );
    const copyMs = nowMs() - t0;
    const copied = Number(cluster.psql("SELECT count(*) FROM bench_copy").trim());
    cluster.psql("DROP TABLE bench_copy");
    // The rows below measure a database in its steady state, not one still vacuuming and
    // writing out a bulk load of minutes ago (on 2 cores that work ran beside every sync):
    // vacuumed, analyzed and checkpointed once, untimed, as autovacuum would have by then.
    cluster.psql("VACUUM ANALYZE");
    cluster.psql("CHECKPOINT");
    const dbBytes = Number(cluster.psql("SELECT pg_database_size(current_database())").trim());
    const rate = (ms: number) => (split.bytes / MB / ms) * 1000;
    if (want(ids.first)) {
      const ours: Cell = {
        s: summarize([firstMs]),
        samples: [firstMs],
        display: `${fmt(rate(firstMs), 1)} MB/s`,
      };
      const ceiling: Cell = {
        s: summarize([copyMs]),
        samples: [copyMs],
        display: `${fmt(rate(copyMs), 1)} MB/s`,
      };
      rows.push({
        id: ids.first,
        unit: "MB/s",
        ours,
        ceiling,
        peer: { na: "–" },
        ratioCeiling: firstMs / copyMs,
        target: targets.first,
        verdict: "n/a",
        notes: [
          `${fmt(split.files.length)} files, ${fmt(split.bytes / MB, 1)} MB: ${fmt(firstMs / 1000, 1)} s wall, ${fmt(cpuMs / 1000, 1)} s CPU of the syncing process; ${fmt(entries)} entries, ${fmt(sent / MB, 0)} MB of text sent; database ${fmt(dbBytes / MB, 0)} MB after`,
          `ceiling: \\copy of the same bytes (${fmt(copied)} lines) into a one-column table, ${fmt(copyMs / 1000, 1)} s; one run (a first sync is once per machine)`,
        ],
      });
    }

    // Incremental: `pi-session sync` as a fresh process, after one appended entry; on this
    // Node and, when installed, on Node 22 (pi's own users' runtime) in the same rounds.
    if (want(ids.append)) {
      log(`- ${ids.append}`);
      const root = split.roots[0] as string;
      const file = split.files.find((f) => f.startsWith(`${root}/`)) as string;
      const last = readFileSync(file, "utf8").trimEnd().split("\n").at(-1) ?? "{}";
      let parent = /"id":"([^"]+)"/.exec(last)?.[1] ?? null;
      let appended = 0;
      const appendOne = () => {
        const id = `zz${String(++appended).padStart(6, "0")}`;
        const time = new Date(Date.UTC(2026, 5, 1, 0, appended)).toISOString();
        appendFileSync(
          file,
          `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: time, message: { role: "user", content: `appended ${id}`, timestamp: Date.parse(time) } })}\n`,
        );
        parent = id;
      };
      interface Side {
        id: string;
        node: string;
        label: string;
        after: number[];
        idle: number[];
        /** `pi-session --version` in the same rounds: the floor of any fresh process here. */
        floor: number[];
        error?: string;
      }
      const sides: Side[] = [
        {
          id: ids.append,
          node: process.execPath,
          label: `node ${process.versions.node}`,
          after: [],
          idle: [],
          floor: [],
        },
      ];
      if (node22Installed() && !runnerOn22())
        sides.push({
          id: `${ids.append.slice(0, -1)}, node 22)`,
          node: node22Path(),
          label: `node ${NODE22.version}`,
          after: [],
          idle: [],
          floor: [],
        });
      const run = (side: Side) =>
        spawnWall({
          cmd: side.node,
          args: [CLI, "sync", "--to", url, "--as", "source-0", "--session-dir", root],
          env: { NO_COLOR: "1" },
        });
      // A fresh process costs a few hundred ms: more rounds than the bench's default, so that a
      // slow spell of the machine moves the median less; the sides take turns going first.
      const rounds = ctx.o.smoke ? 3 : Math.max(11, z.iterations);
      for (let i = -1; i < rounds; i++) {
        for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
          if (side.error) continue;
          appendOne();
          const r = await run(side);
          if (r.code !== 0) side.error = `exit ${r.code}: ${r.err.trim().slice(0, 200)}`;
          else if (i >= 0) side.after.push(r.ms);
          const w = await run(side);
          if (w.code !== 0) side.error = `exit ${w.code}: ${w.err.trim().slice(0, 200)}`;
          else if (i >= 0) side.idle.push(w.ms);
          const v = await spawnWall({ cmd: side.node, args: [CLI, "--version"] });
          if (i >= 0 && v.code === 0) side.floor.push(v.ms);
        }
      }
      // Every appended entry arrived (each run sent its one).
      const arrived = Number(
        cluster
          .psql("SELECT count(*) FROM pi_entries WHERE source = 'source-0' AND entry_id LIKE 'zz%'")
          .trim(),
      );
      const missing =
        arrived !== appended ? `${arrived} of ${appended} appended entries in the database` : undefined;
      for (const side of sides) {
        const error = side.error ?? missing;
        const row: Row = {
          id: side.id,
          unit: "ms",
          ours: msCellOf(side.after, error),
          ceiling: msCellOf(side.idle, error),
          peer: { na: "–" },
          target: targets.append,
          verdict: "n/a",
          notes: [
            `pi-session sync (a fresh process, ${side.label}) of one source (${fmt(split.files.filter((f) => f.startsWith(`${root}/`)).length)} files) after one user entry appended (untimed); ceiling column = the same sync with nothing new, in the same rounds; \`pi-session --version\` in the same rounds (node start and the program): median ${fmt(summarize(side.floor).median)} ms`,
          ],
        };
        if (isNum(row.ours) && isNum(row.ceiling)) {
          row.ratioCeiling = row.ours.s.median / row.ceiling.s.median;
          row.verdict = ctx.o.smoke ? "smoke" : row.ours.s.median < 200 ? "met" : "missed";
        }
        rows.push(row);
      }
    }

    // Search: 10 clients at once, each through the query list, over the five sources.
    if (want(ids.search)) {
      log(`- ${ids.search}`);
      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, () =>
          openPostgresDatabase({ url, readOnly: true, maxConnections: 1 }),
        ),
      );
      try {
        const one = clients[0] as (typeof clients)[number];
        const solo: number[] = [];
        for (const q of QUERIES) {
          const t = nowMs();
          await one.search(q, { limit: 20, hitsPerSession: 3 });
          solo.push(nowMs() - t);
        }
        const all: number[] = [];
        const t = nowMs();
        await Promise.all(
          clients.map(async (c, k) => {
            for (let i = 0; i < QUERIES.length; i++) {
              const q = QUERIES[(i + k) % QUERIES.length] as string;
              const s = nowMs();
              await c.search(q, { limit: 20, hitsPerSession: 3 });
              all.push(nowMs() - s);
            }
          }),
        );
        const wall = nowMs() - t;
        const sorted = [...all].sort((a, b) => a - b);
        const p50 = quantile(sorted, 0.5);
        const p99 = quantile(sorted, 0.99);
        const soloSorted = [...solo].sort((a, b) => a - b);
        const soloP50 = quantile(soloSorted, 0.5);
        rows.push({
          id: ids.search,
          unit: "ms",
          ours: { s: summarize(all), samples: all, display: `p50 ${fmt(p50)} / p99 ${fmt(p99)} ms` },
          ceiling: { s: summarize(solo), samples: solo, display: `p50 ${fmt(soloP50)} ms (1 client)` },
          peer: { na: "–" },
          ratioCeiling: p50 / soloP50,
          target: targets.search,
          verdict: "n/a",
          notes: [
            `${CLIENTS} clients (one connection each) x ${QUERIES.length} queries (${QUERIES.join(" ")}), limit 20, all at once: ${fmt(wall / 1000, 1)} s wall; ceiling column = one client alone, the same queries`,
          ],
        });
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    }
  } catch (error) {
    const why = `failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
    return [
      ...rows,
      ...chosen.filter((k) => !rows.some((r) => r.id === ids[k])).map((k) => naRow(ids[k], why, targets[k])),
    ];
  } finally {
    try {
      cluster?.stop();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return rows;
}
