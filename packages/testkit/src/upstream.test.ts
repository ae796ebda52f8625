/**
 * Tests of the one helper that finds pi's real sessions: where it looks, how a test that
 * needs a missing file is skipped (with a note naming it), and the reporter line that says
 * which tests a run left out.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { TestModule } from "vitest/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDirs, upstreamFixture } from "./fixtures.js";
import { LeftOutReporter } from "./left-out-reporter.js";
import {
  missingUpstreamFixtures,
  repoRoot,
  upstreamFixtureDir,
  upstreamFixtureNames,
  upstreamFixturePath,
  upstreamSkipNote,
} from "./upstream.js";

const dirs = tempDirs("testkit-upstream-");
afterAll(dirs.cleanup);
const saved = process.env.PI_SESSION_UPSTREAM_FIXTURES;
function setDir(dir: string | undefined): void {
  if (dir === undefined) delete process.env.PI_SESSION_UPSTREAM_FIXTURES;
  else process.env.PI_SESSION_UPSTREAM_FIXTURES = dir;
}
afterAll(() => setDir(saved));

describe("upstreamFixtureDir", () => {
  it("is ../shared/fixtures/upstream beside the repository, or PI_SESSION_UPSTREAM_FIXTURES", () => {
    setDir(undefined);
    expect(upstreamFixtureDir()).toBe(resolve(repoRoot(), "..", "shared", "fixtures", "upstream"));
    const dir = dirs.make();
    setDir(dir);
    expect(upstreamFixtureDir()).toBe(dir);
    expect(upstreamFixturePath("large-session")).toBe(join(dir, "large-session.jsonl"));
    setDir(saved);
  });

  it("knows only the two fixtures", () => {
    expect(upstreamFixtureNames).toEqual(["before-compaction", "large-session"]);
    expect(() => upstreamFixturePath("nope" as never)).toThrow(/unknown upstream fixture "nope"/);
    expect(() => upstreamFixture("nope" as never)).toThrow(/unknown upstream fixture/);
  });

  it("lists the fixtures that are not there", () => {
    const dir = dirs.make();
    setDir(dir);
    expect(missingUpstreamFixtures()).toEqual(["before-compaction", "large-session"]);
    writeFileSync(join(dir, "large-session.jsonl"), "{}\n");
    expect(missingUpstreamFixtures()).toEqual(["before-compaction"]);
    expect(upstreamFixture("large-session")).toBe(join(dir, "large-session.jsonl"));
    setDir(saved);
  });
});

describe("a test that needs a missing fixture", () => {
  let empty: string;
  let outside: unknown;
  beforeAll(() => {
    empty = dirs.make();
    setDir(empty);
    try {
      upstreamFixture("before-compaction"); // not inside a test: nothing to skip
    } catch (e) {
      outside = e;
    }
  });
  afterAll(() => setDir(saved));

  it("is skipped by upstreamFixture (this test is reported as skipped)", () => {
    upstreamFixture("large-session");
    throw new Error("not reached: upstreamFixture skips the test");
  });

  it("was skipped with a note naming the file and where it was looked for", (ctx) => {
    // The runner keeps a skip's note on the task result (the reporters' `note`).
    const before = ctx.task.suite?.tasks[0]?.result as { state?: string; note?: string } | undefined;
    expect(before?.state).toBe("skip");
    expect(before?.note).toBe(`needs pi's real session large-session.jsonl, not found in ${empty}`);
    expect(before?.note).toBe(upstreamSkipNote("large-session"));
  });

  it("outside a test, throws with the same note", () => {
    expect(String(outside)).toContain(upstreamSkipNote("before-compaction"));
    expect(String(outside)).toContain("call upstreamFixture inside a test");
  });
});

describe("LeftOutReporter", () => {
  const fakeModule = (tests: { name: string; note?: string }[]) =>
    ({
      relativeModuleId: "src/x.test.ts",
      children: {
        *allTests(state?: string) {
          expect(state).toBe("skipped");
          for (const t of tests)
            yield {
              fullName: t.name,
              project: { name: "@pi-session/x" },
              result: () => ({ state: "skipped", note: t.note }),
            };
        },
      },
    }) as unknown as TestModule;

  it("says nothing when no test was left out for a missing fixture", () => {
    let out = "";
    new LeftOutReporter((t) => {
      out += t;
    }).onTestRunEnd([fakeModule([{ name: "skipped for another reason", note: "other" }, { name: "plain" }])]);
    expect(out).toBe("");
  });

  it("names each test left out, once, with what is missing and where it was looked for", () => {
    const dir = dirs.make();
    setDir(dir);
    try {
      let out = "";
      new LeftOutReporter((t) => {
        out += t;
      }).onTestRunEnd([
        fakeModule([
          { name: "a > reads it", note: upstreamSkipNote("large-session") },
          { name: "b", note: "other" },
          { name: "c > also", note: upstreamSkipNote("before-compaction") },
        ]),
      ]);
      expect(out).toBe(
        `\nLeft out 2 tests that read pi's real sessions (before-compaction.jsonl, large-session.jsonl` +
          ` not found in ${dir}; put them there or point PI_SESSION_UPSTREAM_FIXTURES at them):\n` +
          "  @pi-session/x  src/x.test.ts > a > reads it\n" +
          "  @pi-session/x  src/x.test.ts > c > also\n",
      );
    } finally {
      setDir(saved);
    }
  });
});
