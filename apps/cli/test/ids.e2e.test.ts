/**
 * End-to-end: ids as people read and type them. `ls` shows each session id at its shortest
 * unique prefix (at least 8 characters), every such prefix opens its session in any case,
 * entry ids may be prefixes too, and `latest` is the top row of `ls` in every command.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { utimesSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome, chat, message, plain } from "./harness.js";

let cli: CliHome;
let project: string;
let septemberPath: string;
// Three forks made within a second: time-ordered ids that share their first 13 characters.
const FORKS = [
  "01a232d6-1f00-7000-8000-000000000001",
  "01a232d6-1f01-7000-8000-000000000002",
  "01a232d6-2a00-7000-8000-000000000003",
];
const SEPTEMBER = "5e900000-0000-4000-8000-000000000009";
const SHORT = "c0ffee00-0000-4000-8000-00000000000c";

beforeAll(async () => {
  cli = new CliHome();
  project = cli.dir("work", "app");
  FORKS.forEach((id, i) => {
    cli.write({
      id,
      cwd: project,
      created: `2026-03-0${i + 1}T10:00:00.000Z`,
      entries: chat(`f${i}`, `2026-03-0${i + 1}T10:00:00.000Z`, 2),
    });
  });
  septemberPath = cli.write({
    id: SEPTEMBER,
    cwd: project,
    created: "2025-09-01T10:00:00.000Z",
    entries: chat("e", "2025-09-01T10:00:00.000Z", 3),
  });
  // Entry ids that differ in their first character.
  cli.write({
    id: SHORT,
    cwd: cli.dir("work", "other"),
    created: "2026-01-01T10:00:00.000Z",
    entries: [
      message("1abc0000", null, "2026-01-01T10:01:00.000Z", { role: "user", content: "one" }),
      message("2abc0000", "1abc0000", "2026-01-01T10:02:00.000Z", { role: "user", content: "two" }),
    ],
  });
});

afterAll(() => cli.cleanup());

const lsRows = async () => {
  const r = await cli.runInProcess(["ls"], { cwd: project });
  expect(r.code).toBe(0);
  // The project heading, the column header, then the rows.
  return r.stdout.trimEnd().split("\n").slice(2);
};

describe("short ids", () => {
  it("ls shows the shortest prefix that names one session, at least 8 characters", async () => {
    const shown = (await lsRows()).map((row) => plain(row).split(/\s+/)[3]);
    expect(shown).toEqual(["01a232d6-2", "01a232d6-1f01", "01a232d6-1f00", "5e900000"]);
  });

  it("each shown prefix opens its session, in upper case too", async () => {
    for (const [prefix, id] of [
      ["01a232d6-2", FORKS[2]],
      ["01A232D6-1F01", FORKS[1]],
      ["5E900000", SEPTEMBER],
    ]) {
      const r = await cli.runInProcess(["show", prefix as string, "--json"], { cwd: project });
      expect(r.stderr, prefix).toBe("");
      expect(JSON.parse(r.stdout).id).toBe(id);
    }
    const ambiguous = await cli.runInProcess(["show", "01A232D6"], { cwd: project });
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain("ambiguous: 3 sessions match");
  });
});

describe("entry id prefixes", () => {
  it("--leaf takes a unique prefix in any case; an ambiguous one lists the entries", async () => {
    const r = await cli.runInProcess(["show", SEPTEMBER, "--leaf", "E0000003", "--json"], { cwd: project });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).leafId).toBe("e0000003");
    const short = await cli.runInProcess(["show", SHORT, "--leaf", "1A", "--json"]);
    expect(short.stderr).toBe("");
    expect(JSON.parse(short.stdout).leafId).toBe("1abc0000");
    const context = await cli.runInProcess(["context", SEPTEMBER, "--leaf", "e000000"], { cwd: project });
    expect(context.code).toBe(2);
    expect(context.stderr).toContain("--leaf e000000: 6 entries start with it (e0000001, e0000002");
    const none = await cli.runInProcess(["tree", SEPTEMBER], { cwd: project });
    expect(none.code).toBe(0);
  });

  it("label takes an entry prefix and labels the full id", async () => {
    // The fork first: the label entry gets a random id, which starts with "1a" one time in 256.
    const fork = await cli.runInProcess(["fork", SHORT, "--leaf", "1a", "--json"]);
    expect(fork.stderr).toBe("");
    expect(fork.code).toBe(0);
    const r = await cli.runInProcess(["label", SHORT, "2ABC", "start", "--json"]);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).targetId).toBe("2abc0000");
  });
});

describe("latest", () => {
  it("is the top row of ls (newest by last message), not the file changed last", async () => {
    // The September session's file is the newest on disk (as after a `label`), its messages the oldest.
    const now = new Date();
    utimesSync(septemberPath, now, now);
    const top = await cli.runInProcess(["ls", "--limit", "1", "--json"], { cwd: project });
    const topId = JSON.parse(top.stdout)[0].id;
    expect(topId).toBe(FORKS[2]);
    for (const command of [["show"], ["context"], ["tree"], ["repair"], ["export", "--format", "json"]]) {
      const r = await cli.runInProcess([...command, "latest", "--json"], { cwd: project });
      expect(r.code, command.join(" ")).toBe(0);
      const out = JSON.parse(r.stdout);
      if (command[0] === "context") expect(out.messages.at(-1).content[0].text).toBe("message 3");
      else if (command[0] === "repair") expect(out.file).toContain(FORKS[2]);
      else expect(out.id ?? out.session.id, command.join(" ")).toBe(FORKS[2]);
    }
  });
});
