/**
 * The loop without a build: type-checking and the CLI read the TypeScript sources, never
 * `dist/`. `tsconfig.check.json` maps every `@pi-session/*` export to its source file (the
 * mapping of `workspace-sources.ts`, which vitest uses too), so a type changed in a lower layer
 * is seen by the layers above it before any build; and `pnpm pi-session` runs the CLI from its
 * sources through `scripts/source-hooks.mjs`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sourceEntries } from "./workspace-sources.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const rootScripts: Record<string, string> = JSON.parse(
  readFileSync(join(root, "package.json"), "utf8"),
).scripts;

describe("type-checking reads the sources", () => {
  it("tsconfig.check.json maps every @pi-session export built from a source to that source", () => {
    const check = JSON.parse(readFileSync(join(root, "tsconfig.check.json"), "utf8"));
    const expected = Object.fromEntries(
      sourceEntries(root)
        .map(({ specifier, source }) => [specifier, [`./${relative(root, source)}`]] as const)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    expect(check.compilerOptions.paths).toEqual(expected);
  });
});

describe("pnpm pi-session runs the CLI from its sources", () => {
  // The root script, split as a shell would (it has no quotes).
  const [node, ...args] = (rootScripts["pi-session"] ?? "").split(" ");

  function run(argv: string[], env: Record<string, string>) {
    const r = spawnSync(process.execPath, [...args, ...argv], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", TZ: "UTC", ...env },
      encoding: "utf8",
      timeout: 120_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it("is node on source-main.mjs", () => {
    expect(node).toBe("node");
    expect(args.at(-1)).toBe("apps/cli/src/source-main.mjs");
  });

  it("answers a command from the directory pnpm was started in, with no dist/ involved", () => {
    const home = mkdtempSync(join(tmpdir(), "pi-session-sources-"));
    try {
      const project = join(home, "project");
      const dir = join(home, "sessions", "--project--");
      mkdirSync(project);
      mkdirSync(dir, { recursive: true });
      const header = {
        type: "session",
        version: 3,
        id: "s-1",
        timestamp: "2026-01-02T03:04:05.000Z",
        cwd: project,
      };
      const entry = {
        type: "message",
        id: "e-1",
        parentId: null,
        timestamp: "2026-01-02T03:04:06.000Z",
        message: { role: "user", content: "hello from the sources", timestamp: 1767323046000 },
      };
      writeFileSync(
        join(dir, "2026-01-02T03-04-05-000Z_s-1.jsonl"),
        `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`,
      );
      const env = {
        HOME: home,
        XDG_CACHE_HOME: join(home, ".cache"),
        PI_CODING_AGENT_SESSION_DIR: join(home, "sessions"),
        // pnpm runs scripts in the root and says where it was started.
        INIT_CWD: project,
      };
      const r = run(["show", "latest"], env);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("hello from the sources");
      const usage = run(["no-such-command"], env);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain("unknown command");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
