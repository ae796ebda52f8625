/**
 * `pi-session diff`, in-process: two branches of a session (their ancestor, each side's
 * entries, messages, tool calls, files touched, tokens, cost and how each ended), the default
 * pair (the current leaf and the most recent other), a fork against its parent (`--parent`),
 * and, on generated sessions, `--json` naming the ancestor and the sides a plain walk of the
 * tree names.
 */
import type { AnyEntry } from "@pi-session/format";
import { arbSessionV3, fcOptions, scaledRuns, tempDirs, toJsonl } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  assistantEntry,
  sandbox,
  sessionText,
  toolResultEntry,
  userEntry,
} from "../in-process.test.helper.js";

const dirs = tempDirs("pi-cli-diff-");
afterEach(dirs.cleanup);

interface DiffJson {
  ancestor: { id: string } | null;
  left: {
    leaf: string;
    current: boolean;
    entries: { id: string }[];
    messages: Record<string, number>;
    toolCalls: Record<string, number>;
    files: { path: string; actions: string[] }[];
    tokens: number;
    cost: number;
    stopReason: string | null;
  };
  right: DiffJson["left"];
}

function branched() {
  const box = sandbox(dirs.make());
  const path = box.write(
    "2026-03-01T10-00-00-000Z_dddd0001.jsonl",
    sessionText("dddd0001", "/work/proj", [
      userEntry("u1", null, "Which road?", 1),
      assistantEntry("a1", "u1", { text: "There are two roads.", minute: 2, tokens: 100, cost: 0.01 }),
      // Left: reads and edits, ends in an error.
      userEntry("l1", "a1", "take the left road", 3),
      assistantEntry("l2", "l1", {
        calls: [{ name: "read", arguments: { path: "src/left.ts" } }],
        minute: 4,
        tokens: 200,
        cost: 0.02,
      }),
      toolResultEntry("l3", "l2", "left contents", 5),
      assistantEntry("l4", "l3", {
        calls: [{ name: "edit", arguments: { path: "src/left.ts" } }],
        minute: 6,
        tokens: 300,
        cost: 0.03,
        stopReason: "error",
      }),
      // Right (written last: the current branch): writes a file and stops.
      userEntry("r1", "a1", "take the right road", 7),
      assistantEntry("r2", "r1", {
        calls: [{ name: "write", arguments: { path: "/tmp/right.md", content: "x" } }],
        minute: 8,
        tokens: 50,
        cost: 0.005,
      }),
      assistantEntry("r3", "r2", { text: "Done.", minute: 9, tokens: 60, cost: 0.006 }),
    ]),
  );
  return { box, path };
}

describe("pi-session diff", () => {
  it("compares two named entries: the ancestor, and what each side did after it", async () => {
    const { box, path } = branched();
    const r = await box.run(["diff", path, "l4", "r3", "--json"]);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.out) as DiffJson;
    expect(d.ancestor?.id).toBe("a1");
    expect(d.left).toMatchObject({
      leaf: "l4",
      current: false,
      messages: { user: 1, assistant: 2, toolResult: 1 },
      toolCalls: { read: 1, edit: 1 },
      files: [{ path: "/work/proj/src/left.ts", actions: ["edit", "read"] }],
      tokens: 500,
      stopReason: "error",
    });
    expect(d.left.entries.map((e) => e.id)).toEqual(["l1", "l2", "l3", "l4"]);
    expect(d.left.cost).toBeCloseTo(0.05);
    expect(d.right).toMatchObject({
      leaf: "r3",
      current: true,
      toolCalls: { write: 1 },
      files: [{ path: "/tmp/right.md", actions: ["write"] }],
      tokens: 110,
      stopReason: "stop",
    });
    expect(d.right.entries.map((e) => e.id)).toEqual(["r1", "r2", "r3"]);
    // An entry against one of its descendants: it is the ancestor, its side empty.
    const down = JSON.parse((await box.run(["diff", path, "a1", "l2", "--json"])).out) as DiffJson;
    expect([down.ancestor?.id, down.left.entries, down.right.entries.map((e) => e.id)]).toEqual([
      "a1",
      [],
      ["l1", "l2"],
    ]);
  });

  it("without entries, the current leaf against the most recent other; as text", async () => {
    const { box, path } = branched();
    const d = JSON.parse((await box.run(["diff", path, "--json"])).out) as DiffJson;
    expect([d.left.leaf, d.right.leaf, d.ancestor?.id]).toEqual(["r3", "l4", "a1"]);
    const text = await box.run(["diff", path], { columns: 100 });
    expect(text.code).toBe(0);
    const lines = text.out.split("\n");
    expect(lines[0]).toBe("common ancestor  a1  assistant  There are two roads.");
    expect(text.out).toContain("left  r3  (current leaf)  3 entries after the ancestor");
    expect(text.out).toContain("right  l4  4 entries after the ancestor");
    expect(text.out).toContain("  file edit+read /work/proj/src/left.ts");
    expect(text.out, text.out).toContain("ended error");
    const one = sandbox(dirs.make());
    const linear = one.write(
      "2026-03-01T10-00-00-000Z_eeee0001.jsonl",
      sessionText("eeee0001", "/p", [userEntry("x1", null, "hi", 1)]),
    );
    const none = await one.run(["diff", linear]);
    expect(none.code).toBe(1);
    expect(none.err).toContain("one branch only");
    expect((await box.run(["diff", path, "l4"])).code).toBe(2);
  });

  it("--parent compares a fork with the session it was forked from", async () => {
    const { box, path } = branched();
    const parentEntries = [
      userEntry("u1", null, "Which road?", 1),
      assistantEntry("a1", "u1", { text: "Two roads.", minute: 2 }),
      userEntry("p1", "a1", "stay", 3),
    ];
    const parent = box.write(
      "2026-03-01T09-00-00-000Z_ffff0001.jsonl",
      sessionText("ffff0001", "/work/proj", parentEntries),
    );
    const forkHeader = {
      type: "session",
      version: 3,
      id: "ffff0002",
      timestamp: "2026-03-01T11:00:00.000Z",
      cwd: "/work/proj",
      parentSession: parent,
    };
    const fork = box.write(
      "2026-03-01T11-00-00-000Z_ffff0002.jsonl",
      `${[forkHeader, ...parentEntries.slice(0, 2), userEntry("f1", "a1", "go", 4), assistantEntry("f2", "f1", { text: "Going.", minute: 5 })].map((e) => JSON.stringify(e)).join("\n")}\n`,
    );
    const d = JSON.parse((await box.run(["diff", fork, "--parent", "--json"])).out) as DiffJson & {
      left: { session: string };
    };
    expect(d.ancestor?.id).toBe("a1");
    expect(d.left.session).toBe(parent);
    expect(d.left.entries.map((e) => e.id)).toEqual(["p1"]);
    expect(d.right.entries.map((e) => e.id)).toEqual(["f1", "f2"]);
    const notFork = await box.run(["diff", path, "--parent"]);
    expect(notFork.code).toBe(1);
    expect(notFork.err).toContain("not a fork");
  });

  it("names the ancestor and each side's entries a plain walk of the tree names, on generated sessions", async () => {
    await fc.assert(
      fc.asyncProperty(
        arbSessionV3({ minEntries: 2, maxEntries: 25 }),
        fc.nat(),
        fc.nat(),
        async (session, a, b) => {
          const box = sandbox(dirs.make());
          const entries = session.entries as AnyEntry[];
          const path = box.write(
            "2026-03-01T10-00-00-000Z_gen.jsonl",
            toJsonl({ header: { ...session.header, cwd: "/p" }, entries }),
          );
          const leftId = (entries[a % entries.length] as AnyEntry).id;
          const rightId = (entries[b % entries.length] as AnyEntry).id;
          const byId = new Map(entries.map((e) => [e.id, e]));
          const up = (id: string) => {
            const out: string[] = [];
            for (
              let e = byId.get(id);
              e && !out.includes(e.id);
              e = e.parentId ? byId.get(e.parentId) : undefined
            )
              out.push(e.id);
            return out;
          };
          const l = up(leftId);
          const r = up(rightId);
          const ancestor = l.find((id) => r.includes(id)) ?? null;
          const below = (chain: string[]) =>
            (ancestor === null ? chain : chain.slice(0, chain.indexOf(ancestor))).reverse();
          const run = await box.run(["diff", path, leftId, rightId, "--json"]);
          expect(run.code, run.err).toBe(0);
          const d = JSON.parse(run.out) as DiffJson;
          expect(d.ancestor?.id ?? null).toBe(ancestor);
          expect(d.left.entries.map((e) => e.id)).toEqual(below(l));
          expect(d.right.entries.map((e) => e.id)).toEqual(below(r));
        },
      ),
      fcOptions({ numRuns: scaledRuns(15) }),
    );
  }, 120_000);
});
