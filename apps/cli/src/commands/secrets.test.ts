/**
 * `pi-session secrets`, in-process, on a store holding the planted fake credentials of every
 * common kind (in user text, thinking, tool arguments, tool output and a custom entry) and the
 * decoys: every planted kind found, no decoy, no full secret printed anywhere (text and
 * --json); `--redact --write` leaves each file valid, its secrets gone, every other line
 * byte-identical and its context identical apart from the markers; the backup holds the
 * secrets (and is said to), `--no-backup` keeps none.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname } from "node:path";
import { PLANTED_SECRETS, SECRET_DECOYS, tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  assistantEntry,
  sandbox,
  sessionText,
  toolResultEntry,
  userEntry,
} from "../in-process.test.helper.js";

const dirs = tempDirs("pi-cli-secrets-");
afterEach(dirs.cleanup);

/** Entries holding `text` in turn in user text, thinking, a tool call, its output and a custom entry. */
function holding(prefix: string, texts: readonly string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let parent: string | null = null;
  texts.forEach((text, i) => {
    const id = `${prefix}${String(i).padStart(4, "0")}`;
    let entry: Record<string, unknown>;
    switch (i % 5) {
      case 0:
        entry = userEntry(id, parent, text, i);
        break;
      case 1: {
        const a = assistantEntry(id, parent, { text: "thinking it over", minute: i });
        const message = a.message as { content: unknown[] };
        message.content.unshift({ type: "thinking", thinking: text, thinkingSignature: "c2lnbmF0dXJl" });
        entry = a;
        break;
      }
      case 2:
        entry = assistantEntry(id, parent, {
          calls: [{ name: "bash", arguments: { command: text } }],
          minute: i,
        });
        break;
      case 3:
        entry = toolResultEntry(id, parent, text, i);
        break;
      default:
        entry = {
          type: "custom",
          id,
          parentId: parent,
          timestamp: "2026-03-01T10:00:00.000Z",
          customType: "notes",
          data: { text },
        };
    }
    out.push(entry);
    parent = id;
  });
  return out;
}

function store() {
  const box = sandbox(dirs.make());
  const leaky = box.write(
    "2026-03-01T10-00-00-000Z_aaaa0001.jsonl",
    sessionText(
      "aaaa0001",
      "/work/proj",
      holding("a", ["start here", ...PLANTED_SECRETS.map((p) => p.text), "done"]),
    ),
  );
  const clean = box.write(
    "2026-03-01T10-00-00-000Z_bbbb0002.jsonl",
    sessionText("bbbb0002", "/work/proj", holding("b", ["start here", ...SECRET_DECOYS, "done"])),
  );
  return { box, leaky, clean };
}

function expectNoSecret(text: string): void {
  for (const p of PLANTED_SECRETS) expect(text.includes(p.secret), `${p.kind} printed`).toBe(false);
}

/** Every string of a value with each planted secret replaced by its marker. */
function withMarkers(value: unknown): unknown {
  if (typeof value === "string")
    return PLANTED_SECRETS.reduce((s, p) => s.split(p.secret).join(`[REDACTED:${p.kind}]`), value);
  if (Array.isArray(value)) return value.map(withMarkers);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withMarkers(v)]));
  return value;
}

describe("pi-session secrets", () => {
  it("finds every planted kind and no decoy, and prints no secret (text and --json)", async () => {
    const { box, leaky, clean } = store();
    const text = await box.run(["secrets", "--all"]);
    expect(text.code).toBe(1);
    expectNoSecret(text.out + text.err);
    expect(text.out).toContain(leaky);
    expect(text.out).not.toContain(clean);
    const json = await box.run(["secrets", "--all", "--json"]);
    expect(json.code).toBe(1);
    expectNoSecret(json.out + json.err);
    const report = JSON.parse(json.out) as {
      findings: { path: string; line: number; entryId: string; kind: string; preview: string }[];
    };
    expect(new Set(report.findings.map((f) => f.path))).toEqual(new Set([leaky]));
    for (const [i, p] of PLANTED_SECRETS.entries()) {
      const entryId = `a${String(i + 1).padStart(4, "0")}`;
      expect(
        report.findings.some((f) => f.entryId === entryId && f.kind === p.kind && f.line === i + 3),
        `${p.kind} in ${entryId}`,
      ).toBe(true);
    }
    expect(report.findings.every((f) => /‹.*…\(\d+ chars\)›/.test(f.preview))).toBe(true);
    // A second run answers the clean session from the database's marks, the same.
    const again = await box.run(["secrets", "--all", "--json"]);
    expect(JSON.parse(again.out).findings).toEqual(report.findings);
    const none = await box.run(["secrets", clean]);
    expect(none).toMatchObject({ code: 0, out: "" });
    expect(none.err).toContain("no secrets found in 1 session file");
  });

  it("--redact --write replaces each secret with a marker, every other line byte-identical, the context the same but for the markers", async () => {
    const { box, leaky } = store();
    const before = readFileSync(leaky, "utf8");
    const contextBefore = JSON.parse((await box.run(["context", leaky, "--json"])).out);
    const dry = await box.run(["secrets", leaky, "--redact"]);
    expect(dry.code).toBe(1);
    expect(readFileSync(leaky, "utf8")).toBe(before);
    const run = await box.run(["secrets", leaky, "--redact", "--write"]);
    expect(run.code, run.err).toBe(0);
    expectNoSecret(run.out + run.err);
    expect(run.err).toContain("still hold the secrets");
    const after = readFileSync(leaky, "utf8");
    expectNoSecret(after);
    const linesBefore = before.split("\n");
    const linesAfter = after.split("\n");
    expect(linesAfter.length).toBe(linesBefore.length);
    linesBefore.forEach((line, i) => {
      const holds = PLANTED_SECRETS.some(
        (p) =>
          JSON.stringify(p.secret).slice(1, -1) !== "" &&
          line.includes(JSON.stringify(p.secret).slice(1, -1)),
      );
      if (holds) expect(linesAfter[i]).not.toBe(line);
      else expect(linesAfter[i], `line ${i + 1}`).toBe(line);
      if (line !== "") expect(() => JSON.parse(linesAfter[i] as string)).not.toThrow();
    });
    const validate = await box.run(["validate", leaky]);
    expect(validate.code, validate.out + validate.err).toBe(0);
    const contextAfter = JSON.parse((await box.run(["context", leaky, "--json"])).out);
    expect(contextAfter).toEqual(withMarkers(contextBefore));
    // The backup is the file as it was, secrets and all.
    const backups = readdirSync(dirname(leaky)).filter((n) => n.includes(".bak-"));
    expect(backups).toHaveLength(1);
    expect(readFileSync(`${dirname(leaky)}/${backups[0]}`, "utf8")).toBe(before);
    // Nothing left to find.
    const left = await box.run(["secrets", leaky]);
    expect(left.code, left.out + left.err).toBe(0);
  });

  it("ls --secrets lists the sessions holding secrets, with their kinds", async () => {
    const { box, leaky } = store();
    const json = await box.run(["ls", "--all", "--secrets", "--json"]);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.out) as { path: string; secrets: Record<string, number> }[];
    expect(rows.map((r) => r.path)).toEqual([leaky]);
    const kinds = Object.fromEntries(
      [...new Set(PLANTED_SECRETS.map((p) => p.kind))].map((k) => [
        k,
        PLANTED_SECRETS.filter((p) => p.kind === k).length,
      ]),
    );
    expect(rows[0]?.secrets).toEqual(kinds);
    const text = await box.run(["ls", "--all", "--secrets"], { columns: 200 });
    expect(text.out, text.out).toContain("anthropic, aws 2, database-connection-string, github");
    expectNoSecret(text.out + text.err);
    // Without --secrets, ls does not open the session database.
    expect(JSON.parse((await box.run(["ls", "--all", "--json"])).out)[0]).not.toHaveProperty("secrets");
  });

  it("on a terminal, offers to delete the backups that hold the secrets", async () => {
    const { box, leaky } = store();
    const kept = await box.run(["secrets", leaky, "--redact", "--write"], { answer: "n" });
    expect(kept.code).toBe(0);
    expect(readdirSync(dirname(leaky)).filter((n) => n.includes(".bak-"))).toHaveLength(1);
    expect(kept.err).toContain("once you no longer need it");
    const { box: other, leaky: second } = store();
    const deleted = await other.run(["secrets", second, "--redact", "--write"], { answer: "y" });
    expect(deleted.code).toBe(0);
    expect(deleted.err).toContain("deleted ");
    expect(readdirSync(dirname(second)).filter((n) => n.includes(".bak-"))).toEqual([]);
    expectNoSecret(deleted.out + deleted.err);
  });

  it("--no-backup keeps no copy; --write alone is refused", async () => {
    const { box, leaky } = store();
    expect((await box.run(["secrets", leaky, "--write"])).code).toBe(2);
    const run = await box.run(["secrets", leaky, "--redact", "--write", "--no-backup"]);
    expect(run.code).toBe(0);
    expect(readdirSync(dirname(leaky)).filter((n) => n.includes(".bak-"))).toEqual([]);
    expect(run.err).not.toContain("still hold");
  });
});
