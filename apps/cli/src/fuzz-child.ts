/**
 * The fuzz target's child process (`fuzz.test.ts`; never in the bundle): runs every read API
 * and every read-only CLI output mode on each generated file of a manifest
 * (`{ root, home, cases: [{ path }] }`) and checks that nothing throws unexpectedly, no raw
 * control character is printed, `--json` parses and reading never writes. It prints a JSON
 * line before each case and command and after each case, so the parent can time each step.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname } from "node:path";
import { buildSessionContext } from "@pi-session/context";
import { parseSessionBytes, splitSession } from "@pi-session/format";
import { validateRecords } from "@pi-session/format/schema";
import { migrateRecords } from "@pi-session/migrate";
import {
  listAllSessions,
  listSessionDir,
  listStoreFiles,
  readLinesAsPi,
  readSessionFile,
  readSessionFileSync,
  scanHeader,
  scanHeaderSync,
  scanTail,
  sessionInfoFromRecords,
  streamSessionRecords,
} from "@pi-session/node-store";
import { SessionManager, loadEntriesFromFile, parseSessionEntries } from "@pi-session/sdk";
import { SessionIndex } from "@pi-session/tree";
import { COMMANDS } from "./commands/index.js";
import { runCli } from "./program.js";

interface Manifest {
  root: string;
  home: string;
  cases: { path: string }[];
}

/** Raw characters a terminal acts on (`\n` is the output's own line structure). */
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
/** The same for a document (`export` Markdown): its tabs are content (code), harmless on a terminal. */
const RAW_IN_DOCUMENT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
/** Our palette's colour codes (the only escapes human output may hold). */
const SGR = /\x1b\[\d+m/g;

/** Errors the read APIs document for input that is not a session. */
function documented(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return (
    /not a valid pi session/i.test(message) ||
    (error as Error | undefined)?.name === "SessionHeaderScanLimitError" ||
    (error as Error | undefined)?.name === "SessionFileNotRegularError"
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return `${error.name}: ${error.message.slice(0, 300)}${error.stack ? ` @ ${error.stack.split("\n")[1]?.trim()}` : ""}`;
}

/** Where a raw character is, for the report. */
function rawAt(text: string, raw = RAW): string | undefined {
  const at = text.search(raw);
  if (at < 0) return undefined;
  return `raw U+${text.charCodeAt(at).toString(16).padStart(4, "0")} near ${JSON.stringify(text.slice(Math.max(0, at - 30), at + 30))}`;
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(argv: string[], env: Record<string, string | undefined>, cwd: string): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli({
    argv,
    env,
    cwd,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdinIsTTY: false,
    prompt: async () => "",
    commands: COMMANDS,
  });
  return { code, stdout, stderr };
}

type Output = "human" | "document" | "json" | "jsonl";

/** The read-only output modes over one session file. */
function sessionModes(path: string): [Output, string[]][] {
  return [
    ["human", ["show", path]],
    ["human", ["show", path, "--full"]],
    ["human", ["show", path, "--all-branches"]],
    ["json", ["show", path, "--json"]],
    ["json", ["show", path, "--all-branches", "--json"]],
    ["human", ["tree", path]],
    ["human", ["tree", path, "--full"]],
    ["json", ["tree", path, "--json"]],
    ["human", ["context", path, "--full"]],
    ["human", ["context", path, "--llm"]],
    ["json", ["context", path, "--json"]],
    ["json", ["context", path, "--llm", "--json"]],
    ["human", ["validate", path]],
    ["json", ["validate", path, "--json"]],
    ["human", ["repair", path]],
    ["json", ["repair", path, "--json"]],
    ["human", ["migrate", path]],
    ["json", ["migrate", path, "--json"]],
    ["human", ["stats", path]],
    ["json", ["stats", path, "--json"]],
    ["document", ["export", path, "--format", "md"]],
    ["document", ["export", path, "--format", "md", "--context"]],
    ["json", ["export", path, "--format", "json"]],
    ["jsonl", ["export", path, "--format", "jsonl"]],
    ["human", ["diff", path]],
    ["json", ["diff", path, "--json"]],
    ["human", ["secrets", path]],
    ["json", ["secrets", path, "--json"]],
    ["human", ["files", "--session", path]],
    ["json", ["files", "--session", path, "--json"]],
  ];
}

/** The read-only output modes over the whole store. */
function storeModes(root: string): [Output, string[]][] {
  const s = ["--session-dir", root];
  return [
    ["human", ["ls", "--all", ...s]],
    ["json", ["ls", "--all", "--json", ...s]],
    ["human", ["stats", "--all", "--by", "model", ...s]],
    ["json", ["stats", "--all", "--json", ...s]],
    ["human", ["validate", root]],
    ["json", ["validate", root, "--json"]],
    ["json", ["migrate", root, "--json"]],
    ["human", ["search", "the", ...s]],
    ["json", ["search", "a", "--json", ...s]],
    ["human", ["files", "/", ...s]],
    ["json", ["files", "/", "--json", ...s]],
    ["human", ["ls", "--all", "--secrets", ...s]],
  ];
}

/** Runs the modes and checks their output; `progress` is told before each (the parent's clock). */
async function checkModes(
  modes: [Output, string[]][],
  env: Record<string, string | undefined>,
  cwd: string,
  colour: boolean,
  failures: string[],
  progress: (what: string) => void = () => {},
): Promise<void> {
  for (const [output, argv] of modes) {
    const what = argv.map((a) => (a.includes("/") ? "<path>" : a)).join(" ");
    progress(what);
    let run: CliRun;
    try {
      run = await cli(argv, colour ? { ...env, FORCE_COLOR: "1" } : env, cwd);
    } catch (error) {
      failures.push(`${what}: runCli threw ${describe(error)}`);
      continue;
    }
    if (![0, 1, 3].includes(run.code))
      failures.push(`${what}: exit ${run.code}: ${run.stderr.slice(0, 300)}`);
    // PI_SESSION_DEBUG is set: an error that is not the CLI's own prints its stack.
    if (/\n\s+at /.test(run.stderr)) failures.push(`${what}: unexpected error: ${run.stderr.slice(0, 500)}`);
    const stderr = colour ? run.stderr.replace(SGR, "") : run.stderr;
    const rawErr = rawAt(stderr);
    if (rawErr) failures.push(`${what}: stderr: ${rawErr}`);
    if (output === "human" || output === "document") {
      const stdout = colour ? run.stdout.replace(SGR, "") : run.stdout;
      const raw = rawAt(stdout, output === "document" ? RAW_IN_DOCUMENT : RAW);
      if (raw) failures.push(`${what}: stdout: ${raw}`);
      continue;
    }
    const raw = rawAt(run.stdout);
    if (raw) failures.push(`${what}: --json stdout: ${raw}`);
    if (run.stdout === "") {
      if (run.code === 0) failures.push(`${what}: exit 0 with no output`);
      continue;
    }
    try {
      if (output === "json") JSON.parse(run.stdout);
      else for (const line of run.stdout.split("\n")) if (line !== "") JSON.parse(line);
    } catch (error) {
      failures.push(`${what}: output does not parse: ${describe(error)}`);
    }
  }
}

/** Runs `fn`; a throw that is not documented for such input is a failure. */
async function reads(name: string, failures: string[], fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (error) {
    if (!documented(error)) failures.push(`${name} threw ${describe(error)}`);
  }
}

async function checkReaders(path: string, failures: string[]): Promise<void> {
  const bytes = new Uint8Array(readFileSync(path));
  await reads("format parseSessionBytes/splitSession/validateRecords", failures, () => {
    const { records } = parseSessionBytes(bytes);
    splitSession(records);
    validateRecords(records);
    validateRecords(records, { strict: true });
  });
  await reads("migrate/tree/context over the records", failures, () => {
    const { records } = parseSessionBytes(bytes);
    const migrated = migrateRecords(readLinesAsPi(records).records);
    const entries = splitSession(migrated.records).entries.map((r) => r.value);
    const index = new SessionIndex(entries as never[]);
    index.getTree();
    index.activePath(index.leafId);
    buildSessionContext(entries as never[]);
    SessionIndex.fromRecords(records);
  });
  await reads("node-store readSessionFileSync/readLinesAsPi/sessionInfoFromRecords", failures, () => {
    const contents = readSessionFileSync(path);
    readLinesAsPi(contents.records);
    sessionInfoFromRecords(path, contents.records, new Date());
  });
  await reads("node-store readSessionFile", failures, () => readSessionFile(path));
  await reads("node-store streamSessionRecords", failures, async () => {
    for await (const _ of streamSessionRecords(path)) {
      // Every record, to the end.
    }
  });
  await reads("node-store scanHeaderSync", failures, () => scanHeaderSync(path));
  await reads("node-store scanHeader", failures, () => scanHeader(path));
  await reads("node-store scanTail", failures, () => scanTail(path));
  await reads("node-store listSessionDir", failures, () => listSessionDir(dirname(path), { cache: false }));
  await reads("sdk openReadonly and its views", failures, () => {
    const manager = SessionManager.openReadonly(path);
    manager.buildSessionContext();
    manager.getTree();
    manager.getEntries();
    manager.getBranch();
    manager.getSessionName();
    manager.getHeader();
  });
  await reads("sdk loadEntriesFromFile", failures, () => loadEntriesFromFile(path));
  await reads("sdk parseSessionEntries", failures, () =>
    parseSessionEntries(new TextDecoder().decode(bytes)),
  );
}

/** A fingerprint of a directory: names, sizes and bytes of its files. */
function fingerprint(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      try {
        return `${name}:${readFileSync(`${dir}/${name}`).toString("base64")}`;
      } catch {
        return `${name}:?`;
      }
    })
    .join("\n");
}

function emit(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(): Promise<void> {
  const manifest = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as Manifest;
  // An error that is not the CLI's own prints its stack (see program.ts): the check above.
  process.env.PI_SESSION_DEBUG = "1";
  const env = {
    HOME: manifest.home,
    XDG_CACHE_HOME: `${manifest.home}/cache`,
    TZ: "UTC",
    PATH: process.env.PATH,
  };
  for (const [index, { path }] of manifest.cases.entries()) {
    emit({ start: index });
    const failures: string[] = [];
    const before = fingerprint(dirname(path));
    await checkReaders(path, failures);
    await checkModes(sessionModes(path), env, manifest.home, index % 2 === 1, failures, (what) =>
      emit({ step: what }),
    );
    if (fingerprint(dirname(path)) !== before) failures.push("reading changed the file or its directory");
    emit({ done: index, failures });
  }
  emit({ start: "store" });
  const failures: string[] = [];
  await reads("node-store listAllSessions", failures, () => listAllSessions(manifest.root, { cache: false }));
  await reads("node-store listStoreFiles", failures, () => listStoreFiles(manifest.root));
  await reads("sdk SessionManager.list", failures, () => SessionManager.list(manifest.home, manifest.root));
  const step = (what: string) => emit({ step: what });
  await checkModes(storeModes(manifest.root), env, manifest.home, false, failures, step);
  await checkModes(storeModes(manifest.root), env, manifest.home, true, failures, step);
  emit({ done: "store", failures });
}

await main();
