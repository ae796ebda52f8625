/**
 * No error path prints a database password (issue 37, finding 4). Every command that names a
 * database (`sync --to`, `search --db`, `stats --db`, `serve --db`, and
 * `PI_SESSION_DATABASE_URL`) is run in-process through `runCli` with URLs pg cannot read (a
 * port out of range, a missing `]`, a raw `/` in the password, several hosts, not a URL),
 * with a URL given without `--to`, repeated, beside an unknown option, with `--json`, under
 * `PI_SESSION_DEBUG`, and with URLs that parse but reach no server: the password appears in
 * no spelling (as typed, percent-encoded, decoded) on stdout or stderr, and the run fails
 * with a message. (A wrong password against a real server: `test/team.e2e.test.ts`.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCaptured } from "../test/in-process.js";
import { credentialMask } from "./team-db.js";

const home = mkdtempSync(join(tmpdir(), "pi-session-team-db-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string> = {}) {
  const r = await runCaptured(argv, { env: { PI_CODING_AGENT_DIR: join(home, "agent"), ...env }, cwd: home });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** A password with characters URLs encode, so every spelling of it can be looked for. */
const PASSWORD = "Pw-7 s3cr@t";
const ENCODED = encodeURIComponent(PASSWORD);
const SPELLINGS = [PASSWORD, ENCODED, "Pw-7%20s3cr%40t", "s3cr@t", "Pw-7 s3cr"];

function expectNoPassword(text: string, what: string): void {
  for (const spelling of SPELLINGS) expect(text, what).not.toContain(spelling);
}

/** URLs pg cannot read: refused before anything connects, as a usage error. */
const UNREADABLE = [
  `postgresql://ada:${ENCODED}@127.0.0.1:99999/pi`,
  `postgresql://ada:${ENCODED}@[::1/pi`,
  `postgresql://ada:${ENCODED}/x@127.0.0.1/pi`,
  `postgresql://ada:${ENCODED}@h1:5432,h2:5433/pi`,
  `postgresql://ada:${ENCODED}@127.0.0.1:5x/pi`,
  `postgresql://ada@[::1/pi?password=${ENCODED}`,
  `host=127.0.0.1 password='${PASSWORD}'`,
];
/** URLs pg reads, where nothing listens (port 1 refuses at once; a socket directory that is not there). */
const UNREACHABLE = [
  `postgresql://ada:${ENCODED}@127.0.0.1:1/pi`,
  `postgresql://ada:${PASSWORD}@127.0.0.1:1/pi`,
  `postgresql://ada@127.0.0.1:1/pi?password=${ENCODED}&sslmode=require`,
  `postgresql://ada:${ENCODED}@127.0.0.1:1/pi?sslmode=verify-ca&sslrootcert=${join(home, "missing.pem")}`,
  `postgresql://ada:${ENCODED}@/pi?host=${encodeURIComponent(join(home, "no-socket"))}`,
];

/** Every way a command line names a database, for one URL. */
function commandLines(url: string): string[][] {
  return [
    ["sync", "--to", url],
    ["sync", `--to=${url}`, "--json"],
    ["sync", url],
    ["sync", "--to", url, "--to", url],
    ["sync", "--to", url, "--bogus"],
    ["search", "parser", "--db", url],
    ["search", "parser", "--db", url, "--json"],
    ["stats", "--all", "--db", url, "--json"],
    ["stats", "--db", url],
    ["serve", "--db", url, "--port", "0"],
  ];
}

describe("a database URL pg cannot read", () => {
  it.each(UNREADABLE)("is refused without its password: %s", async (url) => {
    for (const argv of commandLines(url)) {
      const r = await run(argv);
      expectNoPassword(r.out + r.err, argv.join(" "));
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err, argv.join(" ")).toMatch(/error: /);
    }
    const refused = await run(["sync", "--to", url]);
    expect(refused.err).toContain("--to: not a PostgreSQL URL (");
  });

  it("names the problem: the port, the bracket", async () => {
    const port = await run(["sync", "--to", UNREADABLE[0] as string]);
    expect(port.err).toContain(
      "--to: not a PostgreSQL URL (port 99999 is over 65535): postgresql://ada@127.0.0.1:99999/pi",
    );
    const bracket = await run(["search", "x", "--db", UNREADABLE[1] as string]);
    expect(bracket.err).toContain(
      "--db: not a PostgreSQL URL (the host's [ has no ]): postgresql://ada@[::1/pi",
    );
  });

  it.each(UNREADABLE)("from PI_SESSION_DATABASE_URL too: %s", async (url) => {
    for (const argv of [["sync"], ["search", "x", "--db"], ["stats", "--all", "--db"], ["serve", "--db"]]) {
      const r = await run(argv, { PI_SESSION_DATABASE_URL: url });
      expectNoPassword(r.out + r.err, argv.join(" "));
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err).toContain("PI_SESSION_DATABASE_URL: not a PostgreSQL URL");
    }
  });
});

describe("a database URL that reaches no server", () => {
  it.each(UNREACHABLE)("fails without its password: %s", async (url) => {
    for (const argv of commandLines(url)) {
      const r = await run(argv);
      expectNoPassword(r.out + r.err, argv.join(" "));
      expect(r.code, argv.join(" ")).toBeGreaterThan(0);
      expect(r.err, argv.join(" ")).toMatch(/error: /);
    }
    const env = await run(["stats", "--all", "--db", "--json"], { PI_SESSION_DATABASE_URL: url });
    expectNoPassword(env.out + env.err, "PI_SESSION_DATABASE_URL");
    expect(env.code).toBe(1);
  });

  it("PGPASSWORD and the stack under PI_SESSION_DEBUG are masked too", async () => {
    const url = UNREACHABLE[0] as string;
    const r = await run(["sync", "--to", url], { PGPASSWORD: PASSWORD, PI_SESSION_DEBUG: "1" });
    expectNoPassword(r.out + r.err, "debug");
    expect(r.err).toContain("postgresql://ada@127.0.0.1:1/pi: connect ECONNREFUSED");
    const pgEnv = await run(["sync"], { PGHOST: "127.0.0.1", PGPORT: "1", PGPASSWORD: PASSWORD });
    expectNoPassword(pgEnv.out + pgEnv.err, "PG* environment");
    expect(pgEnv.code).toBe(1);
  });
});

describe("credentialMask", () => {
  it("masks what the run was given, in any text, and nothing without credentials", () => {
    const url = `postgresql://ada:${PASSWORD}@[::1/pi`;
    const mask = credentialMask(["sync", `--to=${url}`], { PGPASSWORD: "from-env-pw" }) as (
      t: string,
    ) => string;
    expect(mask(`Unused args: \`${url}\`; ${PASSWORD}; from-env-pw`)).toBe(
      "Unused args: `postgresql://ada@[::1/pi`; ***; ***",
    );
    expect(credentialMask(["ls", "--json"], {})).toBeUndefined();
  });
});
