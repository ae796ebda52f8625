/**
 * The team database over TLS from the command line: the built binary against a throw-away
 * PostgreSQL cluster that refuses TCP without TLS. `sync --to` and `search --db` with libpq's
 * `sslmode=verify-full&sslrootcert=…` and `sslmode=require` work and print nothing on stderr
 * (pg's own "treated as verify-full" warning included); a URL without `sslmode` is refused
 * with the server's reason. Build first (`pnpm build`).
 * @module-tag processes
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type Cluster, startCluster } from "../../../packages/postgres/src/testing/cluster.js";
import { CliHome, chat, plain } from "./harness.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const PASSWORD = "tls-cli-Pa55word";
let cluster: Cluster;
let home: CliHome;

beforeAll(async () => {
  cluster = await startCluster({ tls: true });
  cluster.psql("CREATE DATABASE team");
  cluster.psql(`CREATE ROLE writer LOGIN PASSWORD '${PASSWORD}'`);
  cluster.psql("ALTER DATABASE team OWNER TO writer");
  home = new CliHome("pi-session-team-tls-");
  home.write({
    id: "019d0000-0000-7000-8000-0000000000a1",
    cwd: home.dir("work", "web"),
    created: "2026-03-01T10:00:00.000Z",
    entries: chat("t", "2026-03-01T10:00:00.000Z", 2, (i) => `the encrypted parser ${i}`),
  });
});

afterAll(() => {
  home?.cleanup();
  cluster?.stop();
});

it("sync and search over verify-full and require; no sslmode is refused with the server's reason", () => {
  const base = cluster.tcpUrl("writer", PASSWORD, "team");
  const verified = `${base}?sslmode=verify-full&sslrootcert=${encodeURIComponent(cluster.tls?.caFile ?? "")}`;
  const sync = home.run(["sync", "--to", verified, "--as", "ada@laptop", "--json"]);
  expect(sync.stderr).toBe("");
  expect(sync.code).toBe(0);
  expect(JSON.parse(sync.stdout)).toMatchObject({ filesSent: 1, entriesSent: 4 });
  for (const url of [verified, `${base}?sslmode=require`]) {
    const search = home.run(["search", "encrypted", "--json", "--db", url]);
    expect(search.stderr, url).toBe("");
    expect(search.code, url).toBe(0);
    expect(JSON.parse(search.stdout).sessions.map((s: { source: string }) => s.source)).toEqual([
      "ada@laptop",
    ]);
  }
  const refused = home.run(["search", "encrypted", "--db", base]);
  expect(refused.code).toBe(1);
  expect(plain(refused.stderr)).toContain("no encryption");
  expect(refused.stdout + refused.stderr).not.toContain(PASSWORD);
});
