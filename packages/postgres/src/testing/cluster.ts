/**
 * A throw-away PostgreSQL cluster for tests: `initdb` in a temp dir, `pg_ctl start` on a free
 * port with its unix socket in that dir, a superuser URL to it, and `stop()` that shuts it
 * down and removes the dir. As root (CI), the server runs as the `postgres` system user (initdb
 * refuses root). Test helper only: not part of the published package.
 *
 * Use {@link startCluster} in a `beforeAll`, and `stop()` in the matching `afterAll`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Cluster {
  /** A superuser URL (unix socket in the cluster's dir). */
  url: string;
  /** The same server over TCP (127.0.0.1), for a role with a password. */
  tcpUrl(user: string, password: string, database?: string): string;
  port: number;
  dir: string;
  /** Runs SQL as the superuser through `psql` (for setting up roles in tests). */
  psql(sql: string, database?: string): string;
  stop(): void;
}

/** Why PostgreSQL cannot be started here, or undefined when its binaries are found. */
export function findBinDir(): string | undefined {
  const fromEnv = process.env.PI_SESSION_PG_BINDIR;
  if (fromEnv && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
    if (existsSync(join(dir, "initdb"))) return dir;
  } catch {
    // Debian's pg_config may be absent (libpq-dev); its server binaries live apart.
  }
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(base, versions[0], "bin");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a cluster; throws a clear error when PostgreSQL is not installed. */
export async function startCluster(): Promise<Cluster> {
  const bin = findBinDir();
  if (!bin)
    throw new Error(
      "PostgreSQL not found: install Debian's `postgresql` package (apt-get install -y postgresql), or set PI_SESSION_PG_BINDIR to the directory of initdb and pg_ctl",
    );
  const dir = mkdtempSync(join(tmpdir(), "pi-pg-"));
  const asRoot = process.getuid?.() === 0;
  let uid = -1;
  let gid = -1;
  if (asRoot) {
    const ids = execFileSync("id", ["postgres"], { encoding: "utf8" });
    uid = Number(/uid=(\d+)/.exec(ids)?.[1]);
    gid = Number(/gid=(\d+)/.exec(ids)?.[1]);
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const run = (file: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
    const r = spawnSync(cmd, argv, { encoding: "utf8", cwd: dir });
    if (r.status !== 0) throw new Error(`${file} failed: ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  const data = join(dir, "data");
  const user = asRoot ? "postgres" : (process.env.USER ?? "postgres");
  run(join(bin, "initdb"), ["-D", data, "-U", user, "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"]);
  // Passwords over TCP (the read-only role's test), trust on the socket.
  writeFileSync(join(data, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n");
  if (asRoot) chownSync(join(data, "pg_hba.conf"), uid, gid);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  run(join(bin, "pg_ctl"), ["-D", data, "-o", opts, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  const url = `postgresql://${user}@localhost:${port}/postgres?host=${encodeURIComponent(dir)}`;
  const cluster: Cluster = {
    url,
    port,
    dir,
    tcpUrl: (name, password, database = "postgres") =>
      `postgresql://${encodeURIComponent(name)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    psql: (sql, database = "postgres") =>
      run(join(bin, "psql"), [
        "-h",
        dir,
        "-p",
        String(port),
        "-U",
        user,
        "-d",
        database,
        "-v",
        "ON_ERROR_STOP=1",
        "-qAt",
        "-c",
        sql,
      ]),
    stop() {
      try {
        run(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return cluster;
}
