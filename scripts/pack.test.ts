/**
 * The packages as a downstream developer gets them. `pnpm pack` makes the tarball of every
 * published package; then, in empty projects outside the repository:
 *
 * - each library installs from its own tarball plus only the tarballs of the `@pi-session`
 *   packages it depends on (the closure of its manifest's `dependencies`); the CLI installs
 *   globally from its tarball alone. npm is told that every `@pi-session` name lives at a closed
 *   port (`--@pi-session:registry=http://127.0.0.1:9/`), so a missing tarball fails the install
 *   (a control case shows that it does) instead of coming from the registry; other names come
 *   from the npm cache, else the registry (`--prefer-offline`). Install scripts do not run and
 *   optional dependencies are left out (the SQLite binding, which npm compiles on Node 20).
 * - what is installed works: every public entry loads in Node (`@pi-session/format/schema`
 *   without TypeBox fails with the message that says what to install), the CLI runs.
 * - the installed trees are small (optional dependencies aside): the CLI's global install under
 *   1.5 MB, the SDK's under 2 MB, format's (without TypeBox) under 0.7 MB.
 * - a TypeScript project that imports every public entry of every package (and uses the typed
 *   path from bytes to context, the SDK and its types) compiles against the installed packages
 *   under `nodenext` and under `bundler`.
 * - the pure layers, bundled for the browser by esbuild from the installed packages, decode a
 *   session, migrate it, build its index and context and render it in headless Chromium, with
 *   the result they give in Node.
 * @module-tag processes
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findChromium, launchChromium } from "@pi-session/testkit/chromium";
import { build } from "esbuild";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const MB = 1_000_000;
/** Installed size limits, optional dependencies aside (issue 19). */
const LIMITS = { cli: 1.5 * MB, sdk: 2 * MB, format: 0.7 * MB };
/** Where npm is sent for any `@pi-session` name: the discard port, where nothing listens. */
const BLOCKED_REGISTRY = "http://127.0.0.1:9/";
const NPM_FLAGS = [
  `--@pi-session:registry=${BLOCKED_REGISTRY}`,
  "--fetch-retries=0",
  "--prefer-offline",
  "--ignore-scripts",
  "--omit=optional",
  "--no-audit",
  "--no-fund",
  "--no-update-notifier",
  "--loglevel=error",
];
const SESSIONS = {
  v3: "examples/sessions/--home-dev-projects-webapp--/2026-11-02T09-12-20-000Z_019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f.jsonl",
  v1: "examples/sessions/--home-dev-projects-cli-tool--/2026-11-02T09-00-37-000Z_3f1c2a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69.jsonl",
};

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  bin?: Record<string, string>;
}

const manifests: Manifest[] = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name, "package.json"))
    .filter((path) => existsSync(path))
    .map((path) => JSON.parse(readFileSync(path, "utf8")) as Manifest),
);
const published = manifests.filter((m) => !m.private).sort((a, b) => a.name.localeCompare(b.name));
const byName = new Map(published.map((m) => [m.name, m]));
const libraries = published.filter((m) => m.bin === undefined);
const cli = published.find((m) => m.name === "@pi-session/cli") as Manifest;
const shortName = (name: string) => name.replace("@pi-session/", "");

/** The `@pi-session` packages a package needs at run time: its dependencies' closure. */
function workspaceClosure(name: string, out = new Set<string>()): Set<string> {
  for (const dep of Object.keys(byName.get(name)?.dependencies ?? {}))
    if (dep.startsWith("@pi-session/") && !out.has(dep)) {
      out.add(dep);
      workspaceClosure(dep, out);
    }
  return out;
}

/** The public entries of a package: its `exports` keys as import specifiers. */
const entriesOf = (m: Manifest) =>
  Object.keys(m.exports ?? {})
    .filter((key) => key !== "./package.json")
    .map((key) => m.name + key.slice(1));

const work = mkdtempSync(join(tmpdir(), "pi-session-pack-"));
const tarballs = join(work, "tarballs");
const tarball = (name: string) => join(tarballs, `${shortName(name)}.tgz`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a user's shell: without the `npm_config_*` (and pnpm) variables that
 * `npm run` and `pnpm run` set for the test run, which would point npm at this repository
 * (`npm_config_local_prefix`) or override its settings.
 */
const userEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(npm|pnpm)_/i.test(key)),
);

async function exec(file: string, args: string[], cwd: string): Promise<Run> {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, {
      cwd,
      env: userEnv,
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { ok: true, stdout, stderr };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, stdout: failed.stdout ?? "", stderr: failed.stderr || failed.message };
  }
}

/** At most `limit` of these at a time (npm is slow to start, and the machine has two cores). */
function pool(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    while (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
const queue = pool(3);

/** An empty project that installs these tarballs (and `extra` names from the registry). */
function installProject(dir: string, names: string[], extra: string[] = []): Promise<Run> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "consumer", private: true, type: "module" })}\n`,
  );
  return queue(() => exec("npm", ["install", ...NPM_FLAGS, ...names.map(tarball), ...extra], dir));
}

/** Bytes and files of the packages `roots` need: each package's own files, then its dependencies', resolved as Node does, optional ones aside. */
function installedSize(roots: string[]): { bytes: number; files: number; packages: string[] } {
  const seen = new Set<string>();
  let bytes = 0;
  let files = 0;
  const own = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) own(path);
      else if (entry.isFile()) {
        bytes += lstatSync(path).size;
        files++;
      }
    }
  };
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    own(dir);
    const m = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
    const optional = new Set(Object.keys(m.optionalDependencies ?? {}));
    for (const dep of Object.keys(m.dependencies ?? {})) {
      if (optional.has(dep)) continue;
      let from = dir;
      let found: string | undefined;
      while (found === undefined && from.startsWith(work)) {
        const candidate = join(from, "node_modules", dep);
        if (existsSync(join(candidate, "package.json"))) found = candidate;
        from = dirname(from);
      }
      if (found === undefined) throw new Error(`${m.name}: dependency ${dep} is not installed`);
      visit(found);
    }
  };
  for (const dir of roots) visit(dir);
  return { bytes, files, packages: [...seen].map((dir) => dir.slice(dir.lastIndexOf("node_modules/") + 13)) };
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`;

/** The project of each library, the CLI's global prefix, the consumer, the control: started in `beforeAll`. */
const installs = new Map<string, Promise<Run>>();
const projectOf = (name: string) => join(work, "projects", shortName(name));
const cliPrefix = join(work, "global");
const consumer = join(work, "consumer");

beforeAll(async () => {
  mkdirSync(tarballs, { recursive: true });
  const pnpm = join(root, "node_modules", ".bin", "pnpm");
  const filters = published.flatMap((m) => ["--filter", m.name]);
  const packed = await exec(pnpm, ["-r", ...filters, "pack", "--pack-destination", tarballs], root);
  if (!packed.ok) throw new Error(`pnpm pack failed:\n${packed.stderr}`);
  for (const m of published) {
    const made = join(tarballs, `pi-session-${shortName(m.name)}-${m.version}.tgz`);
    cpSync(made, tarball(m.name));
  }
  for (const m of libraries)
    installs.set(m.name, installProject(projectOf(m.name), [m.name, ...workspaceClosure(m.name)]));
  mkdirSync(cliPrefix, { recursive: true });
  installs.set(
    cli.name,
    queue(() =>
      exec("npm", ["install", "--global", `--prefix=${cliPrefix}`, ...NPM_FLAGS, tarball(cli.name)], work),
    ),
  );
  // TypeBox for @pi-session/format/schema, as its README says.
  installs.set(
    "consumer",
    installProject(
      consumer,
      libraries.map((m) => m.name),
      ["typebox@^1.4.3"],
    ),
  );
  installs.set("control", installProject(join(work, "control"), ["@pi-session/sdk"]));
}, 120_000);

const installed = async (name: string): Promise<void> => {
  const run = await (installs.get(name) as Promise<Run>);
  if (!run.ok) throw new Error(`npm install for ${name} failed:\n${run.stderr}`);
};

describe("the packed packages install alone", () => {
  it("packs every published package", () => {
    expect(published.map((m) => m.name)).toEqual(
      expect.arrayContaining(["@pi-session/cli", "@pi-session/sdk"]),
    );
    for (const m of published) expect(existsSync(tarball(m.name)), m.name).toBe(true);
  });

  it("a missing @pi-session tarball fails the install: npm may not fetch one from a registry", async () => {
    const run = await (installs.get("control") as Promise<Run>);
    expect(run.ok).toBe(false);
    expect(run.stderr).toContain("127.0.0.1:9");
  }, 300_000);

  for (const m of libraries) {
    const needs = [...workspaceClosure(m.name)].sort();
    const from = needs.length ? `and those of ${needs.map(shortName).join(", ")}` : "alone";
    it(`${m.name} installs from its tarball ${from}; its entries load`, async () => {
      await installed(m.name);
      const project = projectOf(m.name);
      const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
        packages: Record<string, { resolved?: string }>;
      };
      const ours = Object.entries(lock.packages).filter(([path]) =>
        path.includes("node_modules/@pi-session/"),
      );
      expect(ours.map(([path]) => path.slice(path.lastIndexOf("@pi-session/"))).sort()).toEqual(
        [m.name, ...needs].sort(),
      );
      for (const [path, entry] of ours) expect(entry.resolved, path).toMatch(/^file:/);
      // Every public entry loads (JSON ones resolve); without TypeBox, format/schema says what to install.
      const script = `
        const out = {};
        for (const spec of ${JSON.stringify(entriesOf(m))}) {
          if (spec.endsWith(".json")) { out[spec] = import.meta.resolve(spec) ? "resolves" : "missing"; continue; }
          try { out[spec] = Object.keys(await import(spec)).length > 0 ? "loads" : "empty"; }
          catch (error) { out[spec] = String(error.message); }
        }
        console.log(JSON.stringify(out));`;
      const loaded = await exec(process.execPath, ["--input-type=module", "-e", script], project);
      expect(loaded.stderr).toBe("");
      const result = JSON.parse(loaded.stdout) as Record<string, string>;
      for (const [spec, outcome] of Object.entries(result)) {
        if (spec === "@pi-session/format/schema")
          expect(outcome).toContain('needs the package "typebox" (1.x), an optional peer dependency');
        else expect(outcome, spec).toMatch(/^(loads|resolves)$/);
      }
    }, 300_000);
  }

  it("the CLI installs globally from its tarball alone and runs", async () => {
    await installed(cli.name);
    const bin = join(cliPrefix, "bin", "pi-session");
    const version = await exec(bin, ["--version"], work);
    expect(version.stdout.trim()).toBe(cli.version);
    const validate = await exec(bin, ["validate", join(root, SESSIONS.v3)], work);
    expect(validate.stderr).toBe("");
    expect(validate.ok).toBe(true);
    // `sync …` runs from dist/sync.cjs with pg from dist/pg.cjs (decision 150): both shipped. A
    // refused connection is pg's own error, so pg loaded.
    const sync = await exec(
      bin,
      ["sync", "--to", "postgresql://nobody@127.0.0.1:9/none", "--as", "pack"],
      work,
    );
    expect(sync.ok).toBe(false);
    expect(sync.stderr).toContain("ECONNREFUSED");
    expect(sync.stderr).not.toMatch(/Cannot find module|MODULE_NOT_FOUND/);
  }, 300_000);

  it("the pi package installs alone from its tarball; its extension registers its tools and command", async () => {
    const name = "@pi-session/pi";
    await installed(name);
    const dir = join(projectOf(name), "node_modules", "@pi-session", "pi");
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      pi: { extensions: string[] };
    };
    // What pi does with the manifest: import each extension and call its default export with its API.
    const script = `
      const { pathToFileURL } = await import("node:url");
      const registered = { tools: [], commands: [], events: [] };
      const pi = {
        registerTool: (tool) => registered.tools.push(tool.name),
        registerCommand: (name) => registered.commands.push(name),
        on: (event) => registered.events.push(event),
      };
      for (const file of ${JSON.stringify(pkg.pi.extensions)})
        (await import(pathToFileURL(${JSON.stringify(dir)} + "/" + file).href)).default(pi);
      console.log(JSON.stringify(registered));`;
    const loaded = await exec(process.execPath, ["--input-type=module", "-e", script], projectOf(name));
    expect(loaded.stderr).toBe("");
    expect(JSON.parse(loaded.stdout)).toEqual({
      tools: ["search_sessions", "read_session"],
      commands: ["sessions"],
      events: ["session_shutdown"],
    });
    // pi's host package is an optional peer: npm did not install pi with it.
    expect(existsSync(join(projectOf(name), "node_modules", "@earendil-works"))).toBe(false);
    expect(installedSize([dir]).bytes).toBeLessThan(0.5 * MB);
  }, 300_000);

  it("installed sizes are within the limits", async () => {
    for (const name of [cli.name, "@pi-session/sdk", "@pi-session/format"]) await installed(name);
    const sizes = {
      cli: installedSize([join(cliPrefix, "lib", "node_modules", "@pi-session", "cli")]),
      sdk: installedSize([join(projectOf("@pi-session/sdk"), "node_modules", "@pi-session", "sdk")]),
      format: installedSize([join(projectOf("@pi-session/format"), "node_modules", "@pi-session", "format")]),
    };
    const report = Object.entries(sizes).map(
      ([what, size]) =>
        `${what}: ${mb(size.bytes)} in ${size.files} files (${size.packages.join(", ")}), limit ${mb(LIMITS[what as keyof typeof LIMITS])}`,
    );
    console.log(`installed sizes (MB = 10^6 bytes):\n  ${report.join("\n  ")}`);
    expect(sizes.format.packages).toEqual(["@pi-session/format"]);
    for (const [what, size] of Object.entries(sizes))
      expect(size.bytes, report.join("; ")).toBeLessThan(LIMITS[what as keyof typeof LIMITS]);
  }, 300_000);
});

/** The TypeScript consumer: every public entry of every library, and typed use of them. */
function consumerSources(): Record<string, string> {
  const specs = libraries.flatMap(entriesOf);
  const imports = specs.map((spec, i) =>
    spec.endsWith(".json")
      ? `import entry${i} from "${spec}" with { type: "json" };`
      : `import * as entry${i} from "${spec}";`,
  );
  const entries = [
    "// Every public entry of every package.",
    ...imports,
    `export const entries = [${specs.map((_, i) => `entry${i}`).join(", ")}];`,
    "",
  ].join("\n");
  const typed = `// The typed path from bytes to context, the renderer, and the SDK with its types.
import { buildSessionContext, convertToLlm, type LlmMessage } from "@pi-session/context";
import { type AnyEntry, type Diagnostic, isEntryOfType, parseSessionText } from "@pi-session/format";
import { validateRecords } from "@pi-session/format/schema";
import { migrateRecords, type MigrationReport } from "@pi-session/migrate";
import { listSessions } from "@pi-session/node-store";
import { buildDocument, renderMarkdown, sessionFromText } from "@pi-session/render";
import {
  SessionManager,
  type SessionContext,
  type SessionEntry,
  type SessionHeader,
  type SessionInfo,
  type SessionTreeNode,
} from "@pi-session/sdk";
import { type SearchDatabase, openSearchDatabase } from "@pi-session/search";
import { SessionIndex } from "@pi-session/tree";

export function contextOf(text: string): { report: MigrationReport; messages: LlmMessage[]; problems: Diagnostic[] } {
  const parsed = parseSessionText(text);
  const { records, report } = migrateRecords(parsed.records);
  const index = SessionIndex.fromRecords<AnyEntry>(records);
  const labels: string[] = index.entries.filter((e) => isEntryOfType(e, "label")).map((e) => e.targetId);
  const context = buildSessionContext(index.entries, index.leafId, index);
  return { report, messages: convertToLlm(context.messages), problems: [...validateRecords(records), ...labels.map((id) => ({ code: "label", severity: "warning" as const, line: 0, offset: 0, reason: id }))] };
}

export const markdownOf = (text: string): string => renderMarkdown(buildDocument(sessionFromText(text)));

export function inMemory(cwd: string): { context: SessionContext; tree: SessionTreeNode[]; header: SessionHeader | null; entries: SessionEntry[] } {
  const session = SessionManager.inMemory(cwd);
  session.appendMessage({ role: "user", content: "What is 2 + 2?", timestamp: 1 });
  return { context: session.buildSessionContext(), tree: session.getTree(), header: session.getHeader(), entries: session.getEntries() };
}

export const listed = (cwd: string): Promise<SessionInfo[]> => SessionManager.list(cwd);
export const stored = (cwd: string) => listSessions(cwd);
export const database = (root: string): Promise<SearchDatabase> => openSearchDatabase({ root });
`;
  const wrong = `import { CURRENT_SESSION_VERSION } from "@pi-session/format";
export const wrong: string = CURRENT_SESSION_VERSION;
`;
  return { "entries.ts": entries, "typed.ts": typed, "wrong.ts": wrong };
}

function compileConsumer(resolution: "nodenext" | "bundler"): string[] {
  const files = consumerSources();
  const dir = join(consumer, resolution);
  mkdirSync(dir, { recursive: true });
  const paths = Object.entries(files).map(([name, text]) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    resolveJsonModule: true,
    types: ["node"],
    typeRoots: [join(root, "node_modules", "@types")],
    ...(resolution === "nodenext"
      ? { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }
      : { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }),
  };
  const program = ts.createProgram(paths, options);
  // The consumer's files and our declarations, fully checked (no skipLibCheck for them); other
  // packages' declarations only as far as ours use them (checking all of TypeBox's and Node's
  // would take most of the time, for nothing of ours).
  const checked = program
    .getSourceFiles()
    .filter(
      (file) =>
        !file.fileName.includes("/node_modules/") || file.fileName.includes("/node_modules/@pi-session/"),
    );
  expect(
    checked.filter((file) => file.fileName.includes("/node_modules/@pi-session/")).length,
  ).toBeGreaterThan(20);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
  ];
  return diagnostics.map((d) => {
    const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}: ` : "";
    return `${where}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

describe("a TypeScript consumer of the packed packages", () => {
  for (const resolution of ["nodenext", "bundler"] as const)
    it(`compiles under moduleResolution ${resolution}`, async () => {
      await installed("consumer");
      const errors = compileConsumer(resolution);
      // The one deliberate error shows that the compiler saw the packages' types.
      expect(errors.filter((e) => e.startsWith("wrong.ts: "))).toEqual([
        "wrong.ts: TS2322 Type 'number' is not assignable to type 'string'.",
      ]);
      expect(errors.filter((e) => !e.startsWith("wrong.ts: "))).toEqual([]);
    }, 300_000);
});

/** What the browser and Node compute from one session, with the installed pure layers. */
const PURE_ENTRY = `import { buildSessionContext, convertToLlm } from "@pi-session/context";
import { parseSessionText } from "@pi-session/format";
import { migrateRecords } from "@pi-session/migrate";
import { buildDocument, renderHtml, renderMarkdown, renderText, sessionFromText } from "@pi-session/render";
import { SessionIndex } from "@pi-session/tree";

export function summary(text) {
  const parsed = parseSessionText(text);
  const { records, report } = migrateRecords(parsed.records);
  const index = SessionIndex.fromRecords(records);
  const context = buildSessionContext(index.entries, index.leafId, index);
  const session = sessionFromText(text);
  const html = renderHtml(session);
  return {
    fromVersion: report.fromVersion,
    lines: parsed.lines,
    entries: index.size,
    leaf: index.leafId,
    roots: index.getTree().length,
    diagnostics: index.diagnostics.length,
    context: context.messages.map((message) => message.role),
    model: context.model,
    thinkingLevel: context.thinkingLevel,
    forProvider: convertToLlm(context.messages),
    markdown: renderMarkdown(buildDocument(session)),
    text: renderText(buildDocument(session, { view: "context" })),
    html: { bytes: html.length, doctype: html.startsWith("<!doctype html>") },
  };
}
`;

describe("the pure layers in a browser", () => {
  const chromium = findChromium();
  it.skipIf(chromium === undefined)(
    "bundled from the packed packages, they decode, migrate, index, build the context and render in Chromium as in Node",
    async () => {
      await installed("consumer");
      writeFileSync(join(consumer, "pure.mjs"), PURE_ENTRY);
      const texts = Object.values(SESSIONS).map((path) => readFileSync(join(root, path), "utf8"));
      writeFileSync(join(consumer, "texts.json"), JSON.stringify(texts));
      const inNode = await exec(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { readFileSync } from "node:fs"; import { summary } from "./pure.mjs";
           console.log(JSON.stringify(JSON.parse(readFileSync("texts.json", "utf8")).map(summary)));`,
        ],
        consumer,
      );
      expect(inNode.stderr).toBe("");
      const expected = JSON.parse(inNode.stdout) as { fromVersion: number; context: string[] }[];
      expect(expected.map((s) => s.fromVersion)).toEqual([3, 1]);
      for (const s of expected) expect(s.context.length).toBeGreaterThan(0);

      // esbuild for the browser fails on any Node built-in; the five pure packages are in the bundle.
      const bundle = await build({
        entryPoints: [join(consumer, "pure.mjs")],
        bundle: true,
        write: false,
        metafile: true,
        format: "iife",
        globalName: "piSession",
        platform: "browser",
        target: "es2022",
        logLevel: "silent",
      });
      const bundled = new Set(
        Object.keys(bundle.metafile.inputs).flatMap(
          (input) => /node_modules\/(@pi-session\/[a-z-]+)\//.exec(input)?.[1] ?? [],
        ),
      );
      expect([...bundled].sort()).toEqual([
        "@pi-session/context",
        "@pi-session/format",
        "@pi-session/migrate",
        "@pi-session/render",
        "@pi-session/tree",
      ]);
      const browser = await launchChromium(chromium as string);
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        await page.setContent("<!doctype html><title>pure layers</title>");
        await page.addScriptTag({ content: bundle.outputFiles[0]?.text ?? "" });
        const inBrowser = await page.evaluate(
          (sessions) =>
            JSON.stringify(
              sessions.map((text) =>
                (
                  globalThis as unknown as { piSession: { summary(text: string): unknown } }
                ).piSession.summary(text),
              ),
            ),
          texts,
        );
        expect(errors).toEqual([]);
        expect(JSON.parse(inBrowser)).toEqual(expected);
      } finally {
        await browser.close();
      }
    },
    300_000,
  );
});
