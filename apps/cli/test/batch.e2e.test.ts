/**
 * End-to-end: `validate`, `migrate` and `repair` name sessions as every command does (ids, id
 * prefixes, `latest`, several, `--all`, nothing = the current project), end with a summary line
 * and exit 1 when something needs fixing; and every file a listing or batch leaves out is
 * warned about, with its reason and a count line (empty, binary, another program's `.jsonl`,
 * a dangling link, a directory named `x.jsonl`, a file without read permission: as `nobody` when
 * the tests run as root, whom permissions do not stop).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, CliHome, chat, dirFor, line, message } from "./harness.js";

const V3_OLD = "a3000001-0000-7000-8000-000000000001";
const V3_NEW = "a3000002-0000-7000-8000-000000000002";
const V1 = "b1000003-0000-4000-8000-000000000003";
const TORN = "c3000004-0000-7000-8000-000000000004";
const OTHER = "0e000000-0000-4000-8000-000000000005";
const asRoot = process.getuid?.() === 0;
/** Root reads through chmod 000: then the permission test runs as `nobody`, if it can. */
const deniedAs = asRoot ? { uid: 65534, gid: 65534 } : undefined;
const canDeny = !deniedAs || spawnSync(process.execPath, ["-e", "0"], deniedAs).status === 0;

let cli: CliHome;
let project: string;
let other: string;
const paths = {} as Record<"old" | "new" | "v1" | "torn" | "other", string>;

/** `n` user messages in a chain (valid under the schema), ids `<prefix>0000001`…, a minute apart. */
function users(prefix: string, start: string, n: number): Record<string, unknown>[] {
  const t0 = Date.parse(start);
  return Array.from({ length: n }, (_, i) =>
    message(
      `${prefix}${String(i + 1).padStart(7, "0")}`,
      i === 0 ? null : `${prefix}${String(i).padStart(7, "0")}`,
      new Date(t0 + (i + 1) * 60_000).toISOString(),
      { role: "user", content: `message ${i}` },
    ),
  );
}

/** A v1 file: a header without a version, entries without ids. */
function writeV1(id: string, cwd: string, created: string): string {
  const dir = join(cli.sessions, dirFor(cwd));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${created.replace(/[:.]/g, "-")}_${id}.jsonl`);
  const header = { type: "session", id, timestamp: created, cwd };
  const user = {
    type: "message",
    timestamp: created,
    message: { role: "user", content: "old", timestamp: 1 },
  };
  writeFileSync(path, line(header) + line(user));
  return path;
}

beforeAll(async () => {
  cli = new CliHome("pi-session-batch-");
  project = cli.dir("work", "app");
  other = cli.dir("work", "other");
  paths.old = cli.write({
    id: V3_OLD,
    cwd: project,
    created: "2026-03-01T10:00:00.000Z",
    entries: users("a", "2026-03-01T10:00:00.000Z", 3),
  });
  paths.new = cli.write({
    id: V3_NEW,
    cwd: project,
    created: "2026-03-05T10:00:00.000Z",
    entries: users("b", "2026-03-05T10:00:00.000Z", 3),
  });
  paths.v1 = writeV1(V1, project, "2026-02-01T10:00:00.000Z");
  paths.torn = cli.write({
    id: TORN,
    cwd: project,
    created: "2026-02-10T10:00:00.000Z",
    entries: users("c", "2026-02-10T10:00:00.000Z", 2),
  });
  // A torn tail: half a line, as a killed writer leaves it.
  writeFileSync(paths.torn, `${readFileSync(paths.torn, "utf8")}{"type":"message","id":"c9`);
  paths.other = cli.write({
    id: OTHER,
    cwd: other,
    created: "2026-01-01T10:00:00.000Z",
    entries: users("d", "2026-01-01T10:00:00.000Z", 2),
  });
});

afterAll(() => cli?.cleanup());

describe("validate, migrate and repair take sessions as every command does", () => {
  it("validate: an id prefix, latest, two ids, --all and nothing (the current project), each with a summary", async () => {
    const one = await cli.runInProcess(["validate", "A3000001-00"]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain(`${paths.old}: ok (v3`);
    expect(one.stdout.trimEnd().split("\n").at(-1)).toBe("1 session checked: 1 valid");

    const latest = await cli.runInProcess(["validate", "latest"], { cwd: project });
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stdout).toContain(paths.new);
    expect(latest.stdout).not.toContain(paths.old);

    const two = await cli.runInProcess(["validate", V3_OLD, V1.slice(0, 10)]);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toContain(paths.old);
    expect(two.stdout).toContain(paths.v1);
    expect(two.stdout.trimEnd().split("\n").at(-1)).toBe("2 sessions checked: 1 valid, 1 needs migration");

    const bare = await cli.runInProcess(["validate"], { cwd: project });
    expect(bare.stderr).toContain(`checking the 4 sessions of ${project}`);
    expect(bare.stdout).not.toContain(paths.other);
    expect(bare.stdout.trimEnd().split("\n").at(-1)).toMatch(
      /^4 sessions checked: 2 valid, 1 needs migration, 1 has errors \(\d+ diagnostics?\)$/,
    );
    // The torn tail is an error: exit 1.
    expect(bare.code).toBe(1);

    const all = await cli.runInProcess(["validate", "--all", "--json"]);
    expect(all.code).toBe(1);
    const report = JSON.parse(all.stdout);
    expect(report.files.map((f: any) => f.file).sort()).toEqual(Object.values(paths).sort());
    expect(report.summary).toMatchObject({ checked: 5, valid: 3, needsMigration: 1, withErrors: 1 });
    // Backward compatible: the old keys are still there.
    expect(report).toMatchObject({ strict: false, unreadable: [] });
    expect(typeof report.errors).toBe("number");

    expect((await cli.runInProcess(["validate", "--all", V3_OLD])).code).toBe(2);
    const none = await cli.runInProcess(["validate"], { cwd: cli.dir("empty-project") });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no sessions for");
    expect(none.stderr).toContain("--all");
  });

  it("migrate: a dry run summarizes, exits 1 when a file needs migrating and 0 when none does", async () => {
    const dry = await cli.runInProcess(["migrate", "--all"]);
    expect(dry.code, dry.stderr).toBe(1);
    const out = dry.stdout.trimEnd().split("\n");
    // Only what changes is listed; the up-to-date files are counted.
    expect(out).toEqual([
      expect.stringContaining(`${paths.v1}: v1 -> v3`),
      "5 sessions checked: 4 up to date, 1 needs migration (v1: 1)",
    ]);
    expect(dry.stderr).toContain("dry run: nothing written");
    const verbose = await cli.runInProcess(["migrate", "--all", "--verbose"]);
    expect(verbose.stdout).toContain(`${paths.old}: v3: up to date`);

    const upToDate = await cli.runInProcess(["migrate", V3_OLD.slice(0, 8), "latest"], { cwd: project });
    expect(upToDate.code, upToDate.stderr).toBe(0);
    expect(upToDate.stdout.trimEnd().split("\n").at(-1)).toBe("2 sessions checked: 2 up to date");

    const json = JSON.parse((await cli.runInProcess(["migrate", V1, "--json"])).stdout);
    expect(json.files[0]).toMatchObject({ file: paths.v1, fromVersion: 1, changed: true, written: false });
    expect(json.summary).toMatchObject({ checked: 1, needMigration: 1, fromVersions: { "1": 1 } });
    expect(json.write).toBe(false);
  });

  it("migrate lists the first ten files that change and counts the rest unless --verbose", async () => {
    const dir = cli.dir("many-v1");
    for (let i = 0; i < 13; i++) {
      const id = `b1000000-0000-4000-8000-0000000001${String(i).padStart(2, "0")}`;
      const header = { type: "session", id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" };
      writeFileSync(join(dir, `${id}.jsonl`), line(header));
    }
    const dry = await cli.runInProcess(["migrate", dir]);
    expect(dry.code).toBe(1);
    const out = dry.stdout.trimEnd().split("\n");
    expect(out.filter((l) => l.includes(": v1 -> v3"))).toHaveLength(10);
    expect(out.at(-2)).toBe("… and 3 more to migrate (--verbose lists every file)");
    expect(out.at(-1)).toBe("13 sessions checked: 0 up to date, 13 need migration (v1: 13)");
    expect((await cli.runInProcess(["migrate", dir, "--verbose"])).stdout.split(": v1 -> v3")).toHaveLength(
      14,
    );
  });

  it("repair: ids, latest, two sessions and --all; a dry run with fixes exits 1, a clean set 0", async () => {
    const clean = await cli.runInProcess(["repair", V3_OLD, "latest"], { cwd: project });
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toContain(`${paths.old}: nothing to repair`);
    expect(clean.stdout).toContain(`${paths.new}: nothing to repair`);
    expect(clean.stdout.trimEnd().split("\n").at(-1)).toBe("2 sessions checked: 2 clean");

    const before = readFileSync(paths.torn);
    const all = await cli.runInProcess(["repair", "--all"]);
    expect(all.code).toBe(1);
    expect(all.stdout).toContain(`${paths.torn}: 1 fix to make`);
    expect(all.stdout.trimEnd().split("\n").at(-1)).toBe(
      "5 sessions checked: 4 clean, 1 needs repair (1 fix)",
    );
    expect(all.stderr).toContain("dry run: nothing written");
    expect(readFileSync(paths.torn)).toEqual(before);
    const json = JSON.parse((await cli.runInProcess(["repair", "--all", "--json"])).stdout);
    expect(json.files).toHaveLength(5);
    expect(json.summary).toBe("5 sessions checked: 4 clean, 1 needs repair (1 fix)");

    // One session: the report as it was (one object), exit 1 for the fix to make.
    const one = await cli.runInProcess(["repair", "C3000004", "--json"]);
    expect(one.code).toBe(1);
    expect(JSON.parse(one.stdout)).toMatchObject({ file: paths.torn, clean: false, written: false });

    const bare = await cli.runInProcess(["repair"], { cwd: project });
    expect(bare.stderr).toContain(`checking the 4 sessions of ${project}`);
    expect(bare.code).toBe(1);
  });
});

/** A home whose project `proj` has one session, `id`; its path. */
function oneSession(home: CliHome, id: string): string {
  const cwd = home.dir("proj");
  return home.write({
    id,
    cwd,
    created: "2026-03-01T10:00:00.000Z",
    entries: chat("a", "2026-03-01T10:00:00.000Z", 1),
  });
}

describe("every file left out is warned about, with a count", () => {
  let store: CliHome;
  let dir: string;
  beforeAll(async () => {
    store = new CliHome("pi-session-skips-");
    dir = dirname(oneSession(store, "c3000000-0000-7000-8000-000000000001"));
    writeFileSync(join(dir, "empty.jsonl"), "");
    writeFileSync(join(dir, "binary.jsonl"), Buffer.from([0, 159, 146, 150, 255, 0, 10, 1, 2]));
    writeFileSync(join(dir, "notes.jsonl"), `${JSON.stringify({ hello: "world" })}\n`);
    symlinkSync(join(dir, "nowhere.jsonl"), join(dir, "dangling.jsonl"));
    mkdirSync(join(dir, "folder.jsonl"));
  });
  afterAll(() => store?.cleanup());

  const COUNT =
    "warning: 5 files skipped: 2 not sessions, 1 empty, 1 not a regular file, 1 unreadable (dangling link or gone)";

  it("ls and ls --all name each file and end with the count line", async () => {
    for (const args of [["ls"], ["ls", "--all"]]) {
      const r = await store.runInProcess(args, { cwd: join(store.home, "proj") });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toContain("c3000000");
      for (const [name, why] of [
        ["empty.jsonl", "empty file"],
        ["binary.jsonl", "not a pi session (no header)"],
        ["notes.jsonl", "not a pi session (no header)"],
        ["folder.jsonl", "not a regular file"],
        ["dangling.jsonl", "cannot read: no such file or directory (ENOENT)"],
      ])
        expect(r.stderr).toContain(`${join(dir, name as string)}: ${why}`);
      expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(COUNT);
    }
    // --json keeps its array; the warnings still go to stderr.
    const json = await store.runInProcess(["ls", "--all", "--json"]);
    expect(JSON.parse(json.stdout)).toHaveLength(1);
    expect(json.stderr).toContain(COUNT);
  });

  it("stats, validate DIR and migrate DIR say what they left out", async () => {
    const stats = await store.runInProcess(["stats", "--all"]);
    expect(stats.stderr).toMatch(/warning: \d+ files? skipped: .*not (a session|sessions)/);
    expect(stats.stderr).toContain(join(dir, "notes.jsonl"));

    // search reads through the same index: what it could not read is said, with the count, and
    // the exit code is 3 (answers given, some files unread), as docs/cli.md says.
    const search = await store.runInProcess(["search", "message"]);
    expect(search.code, search.stderr).toBe(3);
    expect(search.stderr).toContain(`${join(dir, "dangling.jsonl")}: cannot read`);
    expect(search.stderr).toContain("1 file skipped: 1 unreadable (dangling link or gone)");

    // validate reports what is wrong inside each file it reads; the link is counted as skipped.
    const validate = await store.runInProcess(["validate", dir]);
    expect(validate.code).toBe(3);
    expect(validate.stderr).toContain("1 file skipped: 1 unreadable (dangling link or gone)");
    expect(validate.stdout).toContain(`${join(dir, "notes.jsonl")}: errors (no header`);

    const migrate = await store.runInProcess(["migrate", dir]);
    expect(migrate.code).toBe(3);
    expect(migrate.stderr).toContain(`${join(dir, "binary.jsonl")}: not a pi session (no header); skipped`);
    expect(migrate.stderr).toContain(
      "warning: 4 files skipped: 2 not sessions, 1 empty, 1 unreadable (dangling link or gone)",
    );
    expect(migrate.stdout.trimEnd().split("\n").at(-1)).toBe(
      "4 sessions checked: 1 up to date, 3 not sessions, 1 could not be read",
    );
  });

  it("ls with only unreadable files says why nothing is listed and what to do", async () => {
    const lonely = new CliHome("pi-session-lonely-");
    try {
      const cwd = lonely.dir("proj");
      const d = join(lonely.sessions, dirFor(cwd));
      mkdirSync(d, { recursive: true });
      symlinkSync(join(d, "gone.jsonl"), join(d, "a.jsonl"));
      const r = await lonely.runInProcess(["ls"], { cwd });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`no sessions for ${cwd} under ${lonely.sessions}: 1 file left out`);
      expect(r.stderr).toContain("links that lead nowhere");
    } finally {
      lonely.cleanup();
    }
  });

  it.skipIf(!canDeny)(
    "a file without read permission: named, counted, never a bare EACCES",
    {
      tags: ["processes"],
    },
    () => {
      const locked = new CliHome("pi-session-denied-");
      try {
        const path = oneSession(locked, "d3000000-0000-7000-8000-000000000001");
        const cwd = join(locked.home, "proj");
        // Directories `nobody` may enter, a file no one but root may read.
        for (let d = dirname(path); d.startsWith(locked.home); d = dirname(d)) chmodSync(d, 0o755);
        chmodSync(path, 0o000);
        const run = (args: string[]) => {
          // `ls` without its cache: `nobody` may not write the one in this HOME.
          const argv = [BIN, ...args, ...(args[0] === "ls" ? ["--no-cache"] : [])];
          const r = spawnSync(process.execPath, argv, {
            ...deniedAs,
            env: locked.env(),
            cwd,
            encoding: "utf8",
            timeout: 120_000,
          });
          return { code: r.status, stderr: r.stderr };
        };
        const ls = run(["ls"]);
        expect(ls.code, ls.stderr).toBe(3);
        expect(ls.stderr).toContain(`${path}: cannot read: permission denied (EACCES); skipped`);
        expect(ls.stderr).toContain("1 file skipped: 1 unreadable (permission denied)");
        expect(ls.stderr).toContain("chmod u+r");
        const show = run(["show", path]);
        expect(show.code).toBe(1);
        expect(show.stderr).toContain(`${path}: permission denied (EACCES)`);
        expect(show.stderr).not.toMatch(/^error: EACCES/m);
        expect(show.stderr).toContain("chmod u+r");
        const name = run(["name", path, "x"]);
        expect(name.code).toBe(1);
        expect(name.stderr).toContain(`${path}: permission denied (EACCES)`);
        chmodSync(path, 0o600);
      } finally {
        locked.cleanup();
      }
    },
  );
});
