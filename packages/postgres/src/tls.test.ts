/**
 * TLS against a real server that refuses TCP without it: libpq's `sslmode` in a URL and in
 * `PGSSLMODE` (`require` encrypts without a certificate check, `verify-full` checks the chain
 * and the name against `sslrootcert`), pg's own "treated as verify-full" warning never printed,
 * a wrong CA and a missing `sslmode` refused with clear errors that do not show the password.
 *
 * @module-tag processes
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PostgresDatabaseError, openPostgresDatabase } from "./index.js";
import { type Cluster, startCluster } from "./testing/cluster.js";

const PASSWORD = "tls-Pa55word-x";
let cluster: Cluster;
let tls: NonNullable<Cluster["tls"]>;
/** Warnings the process emitted during a test (pg's SECURITY WARNING would be one). */
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);

beforeAll(async () => {
  cluster = await startCluster({ tls: true });
  tls = cluster.tls as NonNullable<Cluster["tls"]>;
  cluster.psql("CREATE DATABASE team");
  cluster.psql(`CREATE ROLE writer LOGIN PASSWORD '${PASSWORD}'`);
  cluster.psql("ALTER DATABASE team OWNER TO writer");
  process.on("warning", onWarning);
}, 120_000);

afterAll(() => {
  process.off("warning", onWarning);
  cluster?.stop();
});

afterEach(() => {
  warnings.length = 0;
});

const url = (query: string) => `${cluster.tcpUrl("writer", PASSWORD, "team")}${query}`;

/** The server's own view: how many of pi-session's connections are encrypted, and how many are not. */
function serverSide(): { encrypted: number; plain: number } {
  const out = cluster.psql(
    `SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'pi-session'`,
  );
  const [encrypted, plain] = out.trim().split("|").map(Number);
  return { encrypted: encrypted ?? Number.NaN, plain: plain ?? Number.NaN };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the connection to fail");
}

describe("a URL's sslmode, as libpq reads it", () => {
  it("verify-full with the server's CA connects encrypted", async () => {
    const db = await openPostgresDatabase({
      url: url(`?sslmode=verify-full&sslrootcert=${encodeURIComponent(tls.caFile)}`),
    });
    try {
      expect(await db.sources()).toEqual([]);
      expect(serverSide()).toEqual({ encrypted: 1, plain: 0 });
    } finally {
      await db.close();
    }
    expect(warnings).toEqual([]);
  });

  it("require encrypts without checking the certificate, and pg prints no warning", async () => {
    const db = await openPostgresDatabase({ url: url("?sslmode=require") });
    try {
      expect(await db.sources()).toEqual([]);
      expect(serverSide()).toEqual({ encrypted: 1, plain: 0 });
    } finally {
      await db.close();
    }
    expect(warnings).toEqual([]);
  });

  it("require with sslrootcert checks the chain (libpq's verify-ca): another CA is refused", async () => {
    const ok = await openPostgresDatabase({
      url: url(`?sslmode=require&sslrootcert=${encodeURIComponent(tls.caFile)}`),
    });
    await ok.close();
    const error = await failure(
      openPostgresDatabase({
        url: url(`?sslmode=require&sslrootcert=${encodeURIComponent(tls.otherCaFile)}`),
      }),
    );
    expect(error.message).toMatch(/certificate/i);
    expect(error.message).not.toContain(PASSWORD);
  });

  it("verify-full with a CA that did not sign the server's certificate is refused", async () => {
    const error = await failure(
      openPostgresDatabase({
        url: url(`?sslmode=verify-full&sslrootcert=${encodeURIComponent(tls.otherCaFile)}`),
      }),
    );
    expect(error.message).toMatch(/certificate/i);
    expect(error.message).not.toContain(PASSWORD);
  });

  it("without sslmode the connection is not encrypted, and this server refuses it", async () => {
    const error = await failure(openPostgresDatabase({ url: url("") }));
    expect(error).toBeInstanceOf(PostgresDatabaseError);
    expect(error.message).toContain("no encryption");
    expect(error.message).not.toContain(PASSWORD);
  });

  it("sslmode=disable is refused the same way", async () => {
    const error = await failure(openPostgresDatabase({ url: url("?sslmode=disable") }));
    expect(error.message).toContain("no encryption");
  });
});

describe("PGSSLMODE and PGSSLROOTCERT, without a URL", () => {
  /** pg reads PGHOST and the rest from process.env itself: set them for one call. */
  async function withEnvironment<T>(extra: Record<string, string>, fn: () => Promise<T>): Promise<T> {
    const names = ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE", "PGSSLMODE", "PGSSLROOTCERT"];
    const saved = new Map(names.map((n) => [n, process.env[n]]));
    const env = {
      PGHOST: "127.0.0.1",
      PGPORT: String(cluster.port),
      PGUSER: "writer",
      PGPASSWORD: PASSWORD,
      PGDATABASE: "team",
      ...extra,
    };
    for (const n of names) delete process.env[n];
    Object.assign(process.env, env);
    try {
      return await fn();
    } finally {
      for (const [n, v] of saved) {
        if (v === undefined) delete process.env[n];
        else process.env[n] = v;
      }
    }
  }

  it("require connects encrypted; verify-full checks against PGSSLROOTCERT", async () => {
    const modes: Record<string, string>[] = [
      { PGSSLMODE: "require" },
      { PGSSLMODE: "verify-full", PGSSLROOTCERT: tls.caFile },
      { PGSSLMODE: "verify-ca", PGSSLROOTCERT: tls.caFile },
    ];
    for (const extra of modes) {
      await withEnvironment(extra, async () => {
        const db = await openPostgresDatabase({ env: process.env });
        try {
          expect(await db.sources(), extra.PGSSLMODE).toEqual([]);
          expect(serverSide(), extra.PGSSLMODE).toEqual({ encrypted: 1, plain: 0 });
        } finally {
          await db.close();
        }
      });
    }
    expect(warnings).toEqual([]);
  });

  it("a wrong CA, verify-ca without a CA, and an unknown mode are clear errors", async () => {
    const wrong = await withEnvironment({ PGSSLMODE: "verify-full", PGSSLROOTCERT: tls.otherCaFile }, () =>
      failure(openPostgresDatabase({ env: process.env })),
    );
    expect(wrong.message).toMatch(/certificate/i);
    expect(wrong.message).not.toContain(PASSWORD);
    const noCa = await withEnvironment({ PGSSLMODE: "verify-ca" }, () =>
      failure(openPostgresDatabase({ env: process.env })),
    );
    expect(noCa.message).toContain("PGSSLROOTCERT");
    const unknown = await withEnvironment({ PGSSLMODE: "always" }, () =>
      failure(openPostgresDatabase({ env: process.env })),
    );
    expect(unknown.message).toContain("PGSSLMODE=always is not one of");
  });
});
