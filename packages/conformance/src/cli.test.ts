/**
 * The `pi-session` CLI against pi 1.6.0 on files with invalid UTF-8 inside strings: pi
 * decodes such a line with U+FFFD and keeps it, so `pi-session context --json` must equal
 * what pi's own `SessionManager.open(file).buildSessionContext()` returns. Spawns the built
 * binary (`apps/cli/dist/pi-session.cjs`; `pnpm build` first).
 * @module-tag processes
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { arbSessionV3, fcOptions, scaledRuns, tempDir } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { hasParentCycle, jsonCopy, withoutRetainedTail } from "./helpers.js";
import { type Json, pi } from "./pi.js";

const BIN = resolve(fileURLToPath(import.meta.url), "../../../../apps/cli/dist/pi-session.cjs");
// Each case spawns the CLI once; a busy CI machine needs far more than the default 5 s.
const TIMEOUT = 180_000;

const tmp = tempDir("conf-cli-");
afterAll(() => tmp.cleanup());
let n = 0;

/** Invalid UTF-8 sequences: a lone continuation byte, 0xFF, a truncated 3-byte sequence, an overlong NUL. */
const BAD = [[0x80], [0xff], [0xe2, 0x82], [0xc0, 0x80]] as const;

/** `line` with `bad` inserted just inside the first string value after `"text":"` (or `"summary":"`). */
function damage(line: string, bad: readonly number[]): Buffer | undefined {
  const match = /"(text|summary|thinking)":"/.exec(line);
  if (!match) return undefined;
  const at = match.index + match[0].length;
  return Buffer.concat([Buffer.from(line.slice(0, at)), Buffer.from(bad), Buffer.from(line.slice(at))]);
}

function cliContext(path: string): unknown {
  const r = spawnSync(process.execPath, [BIN, "context", path, "--json"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: tmp.path },
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe("pi-session context --json equals pi 1.6.0 on lines with invalid UTF-8", () => {
  it("the built CLI is there", () => {
    expect(existsSync(BIN), `${BIN} missing: run pnpm build`).toBe(true);
  });

  it(
    "generated sessions with bad bytes inside strings of some lines",
    () => {
      fc.assert(
        fc.property(
          arbSessionV3({ maxEntries: 16, shuffle: false }),
          fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
          fc.nat(BAD.length - 1),
          (session, picks, which) => {
            const entries = withoutRetainedTail(jsonCopy(session.entries) as unknown as Json[]);
            fc.pre(!hasParentCycle(entries));
            const lines: Buffer[] = [Buffer.from(JSON.stringify(session.header))];
            const targets = new Set(picks.map((p) => p % entries.length));
            let damaged = 0;
            entries.forEach((entry, i) => {
              const text = JSON.stringify(entry);
              const bad = targets.has(i) ? damage(text, BAD[which] as readonly number[]) : undefined;
              if (bad) damaged++;
              lines.push(bad ?? Buffer.from(text));
            });
            fc.pre(damaged > 0);
            const path = join(tmp.path, `s${n++}.jsonl`);
            writeFileSync(path, Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")])));
            // pi may write to a file it opens; it gets a copy.
            const piPath = `${path}.pi.jsonl`;
            copyFileSync(path, piPath);
            const theirs = jsonCopy(pi.SessionManager.open(piPath, tmp.path).buildSessionContext());
            expect(cliContext(path)).toStrictEqual(theirs);
          },
        ),
        fcOptions({ numRuns: scaledRuns(12) }),
      );
    },
    TIMEOUT,
  );
});
