/**
 * Every README example marked runnable runs as written. A fenced block whose info string is
 * `ts runnable` or `js runnable` is one; `browser` after it (`js runnable browser`) also runs it
 * in headless Chromium, bundled for the browser by esbuild (which fails on any Node built-in),
 * where it must log what it logs in Node. The next fenced block, when its info string is
 * `text output`, is what the example prints (its stdout, exactly).
 *
 * The examples see what a user's project would: `@pi-session/*` resolves to the workspace
 * packages by their `exports` (built output: run `pnpm build` first), and TypeScript and
 * JavaScript examples are type-checked together against the built declarations (`nodenext`,
 * strict). Each runs in a child process in a directory of its own holding `session.jsonl` (a v3
 * session with a branch, labels and a compaction), `v1-session.jsonl` (a v1 one), `sessions/`
 * (the repository's example store, also `$SESSIONS`), and a `home/` that is `$HOME`, the pi
 * agent directory and the cache directory, so nothing outside it is read or written. A global
 * `text` holds `session.jsonl` as a string, for examples written for a browser.
 * @module-tag processes
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { findChromium, launchChromium } from "@pi-session/testkit/chromium";
import { build } from "esbuild";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const rel = (path: string) => relative(root, path).split("\\").join("/");

/** The READMEs that must have runnable examples (so dropping a marker fails here). */
const EXPECTED = [
  "apps/sdk/README.md",
  "packages/context/README.md",
  "packages/format/README.md",
  "packages/migrate/README.md",
  "packages/node-store/README.md",
  "packages/render/README.md",
  "packages/tree/README.md",
];

const SESSION =
  "examples/sessions/--home-dev-projects-webapp--/2026-11-02T09-12-20-000Z_019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f.jsonl";
const V1_SESSION =
  "examples/sessions/--home-dev-projects-cli-tool--/2026-11-02T09-00-37-000Z_3f1c2a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69.jsonl";

interface Example {
  readme: string;
  /** Line of the opening fence in the README. */
  line: number;
  language: "ts" | "js";
  browser: boolean;
  code: string;
  /** What it prints, when the README says. */
  output?: string;
  /** Its directory (its cwd) and file, set up in `beforeAll`. */
  dir: string;
  file: string;
}

function readmes(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) readmes(path, out);
    else if (entry.name === "README.md") out.push(path);
  }
  return out;
}

/** The fenced blocks of a Markdown text: info string, body, and the line of the opening fence. */
function fences(text: string): { info: string; body: string; line: number }[] {
  const out: { info: string; body: string; line: number }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i] as string);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i] as string);
    out.push({ info: (open[1] as string).trim(), body: `${body.join("\n")}\n`, line: start + 1 });
  }
  return out;
}

function examplesOf(path: string): Omit<Example, "dir" | "file">[] {
  const blocks = fences(readFileSync(path, "utf8"));
  const out: Omit<Example, "dir" | "file">[] = [];
  blocks.forEach((block, i) => {
    const words = block.info.split(/\s+/);
    if (!(words[0] === "ts" || words[0] === "js") || !words.includes("runnable")) return;
    const next = blocks[i + 1];
    out.push({
      readme: rel(path),
      line: block.line,
      language: words[0],
      browser: words.includes("browser"),
      code: block.body,
      ...(next?.info === "text output" ? { output: next.body } : {}),
    });
  });
  return out;
}

const examples: Example[] = readmes(root)
  .sort()
  .flatMap(examplesOf)
  .map((example) => ({ ...example, dir: "", file: "" }));
const name = (example: Example) => `${example.readme}:${example.line}`;

const work = mkdtempSync(join(tmpdir(), "pi-session-readme-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `@pi-session/<name>` -> the workspace package, as an installed dependency would be. */
function linkWorkspacePackages(): void {
  const scope = join(work, "node_modules", "@pi-session");
  mkdirSync(scope, { recursive: true });
  for (const group of ["packages", "apps"])
    for (const entry of readdirSync(join(root, group))) {
      const manifest = join(root, group, entry, "package.json");
      if (!existsSync(manifest)) continue;
      const { name: packageName } = JSON.parse(readFileSync(manifest, "utf8")) as { name: string };
      symlinkSync(join(root, group, entry), join(scope, packageName.replace("@pi-session/", "")), "dir");
    }
}

/** Node runs the example with this first: the `text` global, and console.log recorded as JSON. */
const PRELOAD = `import { readFileSync, writeFileSync } from "node:fs";
globalThis.text = readFileSync("session.jsonl", "utf8");
const logged = [];
const log = console.log;
console.log = (...args) => { logged.push(args); log(...args); };
process.on("exit", () => writeFileSync("logged.json", JSON.stringify(logged)));
`;

beforeAll(() => {
  linkWorkspacePackages();
  writeFileSync(join(work, "preload.mjs"), PRELOAD);
  writeFileSync(
    join(work, "globals.d.ts"),
    "/** The session file as text (the runner's global). */\ndeclare var text: string;\n",
  );
  examples.forEach((example, i) => {
    example.dir = join(work, `example-${i}`);
    mkdirSync(join(example.dir, "home"), { recursive: true });
    cpSync(join(root, SESSION), join(example.dir, "session.jsonl"));
    cpSync(join(root, V1_SESSION), join(example.dir, "v1-session.jsonl"));
    cpSync(join(root, "examples", "sessions"), join(example.dir, "sessions"), { recursive: true });
    example.file = join(example.dir, `example.${example.language === "ts" ? "mts" : "mjs"}`);
    writeFileSync(example.file, example.code);
  });
});

/** Where a diagnostic of an example file is in its README. */
function readmePlace(diagnostic: ts.Diagnostic): string {
  const example = examples.find((e) => e.file === diagnostic.file?.fileName);
  if (!example || !diagnostic.file || diagnostic.start === undefined) return diagnostic.file?.fileName ?? "";
  const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${example.readme}:${example.line + 1 + line}`;
}

/** The JavaScript Node runs: a TypeScript example with its types stripped. */
function javascriptOf(example: Example): string {
  if (example.language === "js") return example.file;
  const out = example.file.replace(/\.mts$/, ".mjs");
  const { outputText } = ts.transpileModule(example.code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(out, outputText);
  return out;
}

async function runInNode(example: Example): Promise<{ stdout: string; logged: string }> {
  const home = join(example.dir, "home");
  const { stdout } = await run(
    process.execPath,
    ["--import", pathToFileURL(join(work, "preload.mjs")).href, javascriptOf(example)],
    {
      cwd: example.dir,
      timeout: 90_000,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        PI_CODING_AGENT_DIR: join(home, ".pi", "agent"),
        XDG_CACHE_HOME: join(home, ".cache"),
        SESSIONS: join(example.dir, "sessions"),
        NO_COLOR: "1",
      },
    },
  );
  return { stdout, logged: readFileSync(join(example.dir, "logged.json"), "utf8") };
}

describe("README examples", () => {
  it("finds the runnable examples", () => {
    expect([...new Set(examples.map((e) => e.readme))]).toEqual(EXPECTED);
  });

  it("type-check against the built declarations (nodenext, strict)", () => {
    const program = ts.createProgram([join(work, "globals.d.ts"), ...examples.map((e) => e.file)], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      allowJs: true,
      checkJs: true,
      skipLibCheck: true,
      types: ["node"],
      typeRoots: [join(root, "node_modules", "@types")],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${readmePlace(d)}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(errors).toEqual([]);
  });

  for (const example of examples)
    it(`${name(example)} runs in Node${example.output === undefined ? "" : " and prints what the README says"}`, async () => {
      const { stdout } = await runInNode(example);
      if (example.output !== undefined) expect(stdout).toBe(example.output);
    });

  const chromium = findChromium();
  for (const example of examples.filter((e) => e.browser))
    it.skipIf(chromium === undefined)(
      `${name(example)} runs in Chromium and logs what it logs in Node`,
      async () => {
        const { logged: inNode } = await runInNode(example);
        const bundle = await build({
          entryPoints: [javascriptOf(example)],
          bundle: true,
          write: false,
          format: "iife",
          platform: "browser",
          target: "es2022",
          logLevel: "silent",
        });
        const browser = await launchChromium(chromium as string);
        try {
          const page = await browser.newPage();
          const errors: string[] = [];
          page.on("pageerror", (error) => errors.push(error.message));
          await page.setContent("<!doctype html><title>example</title>");
          await page.evaluate(
            (text) => {
              const w = globalThis as unknown as { text: string; logged: unknown[][]; console: Console };
              w.text = text;
              w.logged = [];
              w.console.log = (...args: unknown[]) => w.logged.push(args);
            },
            readFileSync(join(example.dir, "session.jsonl"), "utf8"),
          );
          await page.addScriptTag({ content: bundle.outputFiles[0]?.text ?? "" });
          const inBrowser = await page.evaluate(() =>
            JSON.stringify((globalThis as unknown as { logged: unknown }).logged),
          );
          expect(errors).toEqual([]);
          expect(JSON.parse(inNode)).not.toEqual([]);
          expect(JSON.parse(inBrowser)).toEqual(JSON.parse(inNode));
        } finally {
          await browser.close();
        }
      },
    );
});
