/**
 * The README's example runs as written against a throw-away cluster (the repository's README
 * check has no PostgreSQL, so the block is not marked runnable there): it syncs the
 * repository's example store, searches, sums up by source and lists the sources.
 *
 * @module-tag processes
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "./testing/cluster.js";

const run = promisify(execFile);
const pkg = fileURLToPath(new URL("..", import.meta.url));
const repo = join(pkg, "..", "..");
let cluster: Cluster;
const home = mkdtempSync(join(tmpdir(), "pi-pg-readme-"));

beforeAll(async () => {
  cluster = await startCluster();
}, 120_000);

afterAll(() => {
  cluster?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe("README", () => {
  it("the example runs", async () => {
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    const code = /## Example\s+```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    expect(existsSync(join(pkg, "dist", "index.js")), "build the package first (pnpm build)").toBe(true);
    // Inside the package, so `@pi-session/postgres` resolves to it (a self-reference).
    const file = join(pkg, "dist", "readme-example.test.mjs");
    writeFileSync(file, code as string);
    try {
      const { stdout, stderr } = await run(process.execPath, [file], {
        env: {
          PATH: process.env.PATH,
          HOME: home,
          PI_SESSION_DATABASE_URL: cluster.url,
          SESSIONS: join(repo, "examples", "sessions"),
        },
      });
      expect(stderr).toBe("");
      const lines = stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^postgresql \d+\S* postgresql:\/\//);
      expect(lines[1]).toMatch(/^\d+ sent, 0 appended, \d+ entries$/);
      expect(Number(lines[1]?.split(" ")[0])).toBeGreaterThan(0);
      expect(stdout).toContain("ada@laptop");
    } finally {
      rmSync(file, { force: true });
    }
  }, 120_000);
});
