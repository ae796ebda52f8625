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
  /** With `tls`: the CA that signed the server's certificate (for `sslrootcert`), and a CA that did not. */
  tls?: { caFile: string; otherCaFile: string };
  stop(): void;
}

export interface ClusterOptions {
  /**
   * Serve TCP over TLS only: a certificate for 127.0.0.1 and localhost, signed by a CA made
   * for the cluster; a TCP connection without TLS is refused by `pg_hba.conf`.
   */
  tls?: boolean;
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

/**
 * A CA and a server certificate signed by it (with `openssl`), and a second CA that signed
 * nothing, in `dir`; the key readable by the server's user only.
 */
function makeCertificates(dir: string, owner: { uid: number; gid: number } | undefined) {
  const openssl = (args: string[]) => {
    const r = spawnSync("openssl", args, { encoding: "utf8", cwd: dir });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr || r.error?.message}`);
  };
  const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  for (const name of ["ca", "other-ca"])
    openssl([
      "req",
      "-x509",
      ...key,
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.pem`,
      "-days",
      "2",
      "-subj",
      `/CN=pi-session test ${name}`,
    ]);
  openssl(["req", ...key, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"]);
  writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  openssl([
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-days",
    "2",
    "-extfile",
    "server.ext",
  ]);
  for (const file of ["server.key", "server.pem"]) {
    if (owner) chownSync(join(dir, file), owner.uid, owner.gid);
  }
  chmodSync(join(dir, "server.key"), 0o600);
  return {
    caFile: join(dir, "ca.pem"),
    otherCaFile: join(dir, "other-ca.pem"),
    certFile: join(dir, "server.pem"),
    keyFile: join(dir, "server.key"),
  };
}

/** Starts a cluster; throws a clear error when PostgreSQL is not installed. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
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
  // Passwords over TCP (the read-only role's test), trust on the socket; with TLS, TCP without it refused.
  const tls = options.tls === true ? makeCertificates(dir, asRoot ? { uid, gid } : undefined) : undefined;
  const tcp = tls
    ? "hostnossl all all 127.0.0.1/32 reject\nhostssl all all 127.0.0.1/32 scram-sha-256\n"
    : "host all all 127.0.0.1/32 scram-sha-256\n";
  writeFileSync(join(data, "pg_hba.conf"), `local all all trust\n${tcp}`);
  if (asRoot) chownSync(join(data, "pg_hba.conf"), uid, gid);
  const port = await freePort();
  let opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  if (tls) opts += ` -c ssl=on -c ssl_cert_file=${tls.certFile} -c ssl_key_file=${tls.keyFile}`;
  run(join(bin, "pg_ctl"), ["-D", data, "-o", opts, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  const url = `postgresql://${user}@localhost:${port}/postgres?host=${encodeURIComponent(dir)}`;
  const cluster: Cluster = {
    url,
    port,
    dir,
    ...(tls ? { tls: { caFile: tls.caFile, otherCaFile: tls.otherCaFile } } : {}),
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
