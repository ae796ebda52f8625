/**
 * Our types line up with pi's own, both ways, in TypeScript: pi-style code typed with
 * `@earendil-works/pi-ai` 1.6.0's messages (and pi-agent-core's `AgentMessage`, with
 * pi-coding-agent's custom messages) compiles against `@pi-session/sdk` and
 * `@pi-session/context` when only the import lines change (test/pi-types/snippet.ts, compiled
 * as it is and with pi-coding-agent's imports), and every message type of ours is assignable
 * to pi's and pi's to ours (test/pi-types/equivalence.ts); so is each session entry type, the
 * header, the tree node, the context and projection, and our `SessionManager` is pi's
 * `ReadonlySessionManager` (an extension's `ctx.sessionManager`) with every public method of pi's
 * class (test/pi-types/drop-in.ts). Compiled with the TypeScript API under `strict` against our
 * built declarations, as a user's project would see them.
 * @module-tag compiler
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const fixtures = join(pkg, "test", "pi-types");
// Inside the package, so the imports resolve through its node_modules (pi and our packages).
const scratch = mkdtempSync(join(pkg, "test", ".pi-types-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: ["node"],
};

/** The errors of compiling these files together, as `file: TSnnnn message` lines. */
function compile(files: Record<string, string>): string[] {
  const names = Object.entries(files).map(([name, text]) => {
    const path = join(scratch, name);
    writeFileSync(path, text);
    return path;
  });
  const program = ts.createProgram(names, options);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(scratch.length + 1)}: ` : "";
    return `${where}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

const snippet = readFileSync(join(fixtures, "snippet.ts"), "utf8");
const piSnippet = snippet.replace(
  /from "(@pi-session\/[a-z-]+)"; \/\/ pi: (\S+)/g,
  (_, _ours: string, theirs: string) => `from "${theirs}";`,
);

// One program for all (pi's types take seconds to load); each file's errors are its own.
let errors: string[] = [];
beforeAll(() => {
  errors = compile({
    // pi-coding-agent's custom messages (bashExecution, custom, ...) in pi's `AgentMessage`, as
    // in a project that has pi.
    "pi-coding-agent.ts": 'export type {} from "@earendil-works/pi-coding-agent";\n',
    "snippet-pi.ts": piSnippet,
    "snippet.ts": snippet,
    "equivalence.ts": readFileSync(join(fixtures, "equivalence.ts"), "utf8"),
    "drop-in.ts": readFileSync(join(fixtures, "drop-in.ts"), "utf8"),
    "control.ts": [
      'import type { Message } from "@earendil-works/pi-ai";',
      'import type { BashExecutionMessage } from "@pi-session/format";',
      "export const wrong = (bash: BashExecutionMessage): Message => bash;",
      "",
    ].join("\n"),
  });
}, 120_000);
const errorsOf = (file: string) => errors.filter((e) => e.startsWith(`${file}: `));

describe("pi 1.6.0's types", () => {
  it("the snippet is pi code: it compiles with pi-coding-agent's imports", () => {
    expect(piSnippet).not.toContain("@pi-session/");
    expect(errorsOf("snippet-pi.ts")).toEqual([]);
  });

  it("the same code compiles with @pi-session/sdk and @pi-session/context", () => {
    expect(snippet).toContain('from "@pi-session/sdk"');
    expect(errorsOf("snippet.ts")).toEqual([]);
  });

  it("each message type is assignable to pi's and pi's to ours", () => {
    expect(errorsOf("equivalence.ts")).toEqual([]);
  });

  it("each session type is pi's both ways; our SessionManager is pi's ReadonlySessionManager and has pi's methods", () => {
    expect(options.strict).toBe(true);
    expect(errorsOf("drop-in.ts")).toEqual([]);
  });

  it("a wrong assignment fails (the harness sees errors)", () => {
    expect(errorsOf("control.ts")).toHaveLength(1);
    expect(errorsOf("control.ts")[0]).toMatch(/^control\.ts: TS2322 /);
  });

  it("nothing else has errors", () => {
    expect(errors.filter((e) => !e.startsWith("control.ts: "))).toEqual([]);
  });
});
