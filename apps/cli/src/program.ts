/**
 * The `pi-session` program: the cac command table (`./commands/index.ts`, each implementation
 * loaded only when its command runs), global options, and the one place where every outcome
 * becomes an exit code (0 ok, 1 findings or failure, 2 usage error).
 */
import { CAC } from "cac";
import type { CommandSpec } from "./commands/index.js";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from "./errors.js";
import { Io, type Stream, consoleInfoText } from "./io.js";
import type { PagedOutput } from "./pager.js";
import { suggestionHint } from "./suggest.js";
import { credentialMask } from "./team-db.js";
import { oneLineField } from "./terminal-safe.js";
import { VERSION } from "./version.js";

/** What a command action receives besides its own arguments. */
export interface Context {
  io: Io;
  env: Record<string, string | undefined>;
  cwd: string;
  /** `--session-dir`, when given. */
  sessionDir: string | undefined;
  json: boolean;
  /** Whether stdin is a terminal (for `rm`'s confirmation). */
  stdinIsTTY: boolean;
  /** Reads one line from stdin (for confirmations). */
  prompt(question: string): Promise<string>;
  /**
   * Work the run finishes before it resolves, though the command has answered (`pick`'s index
   * brought up to date meanwhile): the binary exits as soon as the run resolves.
   */
  finishLater(work: Promise<unknown>): void;
}

/** A command action: returns its exit code (0 or 1); throws {@link CliError} on failure. */
export type Action = (ctx: Context, args: unknown[], options: Record<string, unknown>) => Promise<number>;

type Runner = (load: () => Promise<Action>, paged: boolean) => (...args: unknown[]) => void;

/** The commands whose output may run longer than a screen: paged on a terminal (`pager.ts`). */
const PAGED = new Set(["ls", "show", "tree", "context", "stats", "search", "validate", "files", "diff"]);

/** Exit code of a command stopped by Ctrl-C (128 + SIGINT), as shells report it. */
const EXIT_INTERRUPTED = 130;

export interface RunOptions {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: Stream;
  stderr: Stream;
  stdinIsTTY: boolean;
  prompt(question: string): Promise<string>;
  /**
   * Whether long output may go through a pager when stdout is a terminal (the binary: yes;
   * in-process callers: no, by default).
   */
  pager?: boolean;
  /**
   * The command table (`COMMANDS` of `commands/index.ts`): the binary's `sync` path declares
   * the sync command alone, so that its bundle holds no other command (decision 150).
   */
  commands: readonly CommandSpec[];
}

const GLOBAL_HELP_FOOTER = `Sessions:
  <session> is a file path, a full session id, a unique id prefix (any case), or \`latest\`
  (the top row of \`ls\`: the newest session of the current directory's project, by its last
  message). An entry id (--leaf, label) may be a unique prefix too. Sessions are looked up
  under --session-dir, else PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting, else
  $PI_CODING_AGENT_DIR/sessions (default ~/.pi/agent/sessions).

Output:
  Data goes to stdout, progress and errors to stderr. --json prints stable JSON (see docs/cli.md).
  Colours only on a terminal; NO_COLOR or --no-color turns them off. Long output on a terminal
  goes through a pager: PI_SESSION_PAGER, else PAGER, else less -R (LESS=FRX); --no-pager,
  PI_SESSION_PAGER= or PAGER=cat turn it off.

Exit codes:
  0 success, 1 findings or failure, 2 usage error, 3 a batch (validate, migrate, stats, ls,
  search, sync) skipped files or directories it could not read (each reported) and did the rest.

Read-only by default: commands that change files say so, need --write (or are explicit write
commands: fork, name, label, rm), and write atomically; rewrites keep a backup next to the file.
rm moves a session and its backups to the trash where one exists (else deletes them).`;

/**
 * Runs the CLI once and resolves to the exit code, once everything the command started has
 * ended (see {@link Context.finishLater}). Never calls `process.exit`.
 */
export async function runCli(options: RunOptions): Promise<number> {
  const later: Promise<unknown>[] = [];
  try {
    return await runOnce(options, later);
  } finally {
    await Promise.allSettled(later);
  }
}

async function runOnce(options: RunOptions, later: Promise<unknown>[]): Promise<number> {
  const { env } = options;
  // Operands that look like options (`--home-u-proj--`, anything after `--`) are hidden from
  // cac behind placeholders and given back once it has parsed.
  const { argv, operands } = hideOperands(options.argv);
  // Decide colours and JSON before cac parses, so even usage errors respect them.
  const json = argv.includes("--json");
  const color = !argv.includes("--no-color");
  // stdout as the command sees it: the terminal, or a pager in front of it once one is chosen.
  let sink: Stream = options.stdout;
  let pager: PagedOutput | undefined;
  const stdout: Stream = {
    write: (chunk) => sink.write(chunk),
    once: (event, listener) => (sink.once ? sink.once(event, listener) : listener()),
    isTTY: options.stdout.isTTY === true,
    ...(options.stdout.columns !== undefined ? { columns: options.stdout.columns } : {}),
  };
  const io = new Io({ stdout, stderr: options.stderr, env, color, json, conceal: credentialMask(argv, env) });

  const cli = new CAC("pi-session");
  let pending: Promise<number> | undefined;
  const run: Runner =
    (load, paged) =>
    (...args: unknown[]) => {
      const opts = (args.at(-1) ?? {}) as Record<string, unknown>;
      const sessionDir = opts.sessionDir;
      if (sessionDir !== undefined && (typeof sessionDir !== "string" || sessionDir === "")) {
        throw new UsageError("--session-dir needs a directory");
      }
      const ctx: Context = {
        io,
        env,
        cwd: options.cwd,
        sessionDir: sessionDir as string | undefined,
        json: opts.json === true,
        stdinIsTTY: options.stdinIsTTY,
        prompt: options.prompt,
        finishLater: (work) => {
          later.push(work);
        },
      };
      const wantsPager = paged && options.pager === true && !ctx.json && opts.pager !== false && stdout.isTTY;
      pending = (async () => {
        // Loaded only when it may page: the program itself stays small (see e2e "the frame").
        if (wantsPager) {
          const { PagedOutput, pagerCommand } = await import("./pager.js");
          const command = pagerCommand(env);
          if (command !== undefined) {
            pager = new PagedOutput(command, env, options.stdout);
            sink = pager;
          }
        }
        const action = await load();
        return action(ctx, args.slice(0, -1), opts);
      })();
    };

  cli.option("--session-dir <dir>", "Where to look for sessions (overrides pi's settings)");
  cli.option("--json", "Print JSON on stdout (stable shapes, see docs/cli.md)");
  cli.option("--no-color", "No colours (also NO_COLOR=1)");
  cli.option("--no-pager", "Never page long output (also PI_SESSION_PAGER= or PAGER=cat)");
  cli.option("-v, --version", "Print the version");
  cli.help((sections) => {
    for (const section of sections) {
      section.body = section.body
        .split("\n")
        .map((l) => l.replace(" (default: true)", "").trimEnd())
        .join("\n");
    }
    const first = sections[0];
    if (first) first.body = `pi-session ${VERSION}: your pi coding-agent sessions, on the command line`;
    // cac prints the global help for a bare program; add conventions, drop its noisy footer.
    const matched = cli.matchedCommand;
    if (matched) {
      const [title, ...rest] = sections;
      const body = { body: matched.description };
      const details = options.commands.find((c) => c.name === matched.name)?.details;
      const tail = details ? [...rest, { body: details }] : rest;
      return title ? [title, body, ...tail] : [body, ...tail];
    }
    return [...sections.filter((s) => !s.title?.startsWith("For more info")), { body: GLOBAL_HELP_FOOTER }];
  });
  // The help is printed below, through `io` (cac would write it to the console).
  cli.showHelpOnExit = false;

  for (const spec of options.commands) spec.declare(cli).action(run(spec.load, PAGED.has(spec.name)));

  try {
    cli.parse(["node", "pi-session", ...camelOptions(argv, valuedOptions(cli))], { run: false });
    operands.restore(cli);
    const parsed = cli.options;
    if (parsed.help) {
      // The help of the matched command, or the global one.
      const command = cli.matchedCommand ?? cli.globalCommand;
      io.line(consoleInfoText(() => command.outputHelp()).trimEnd());
      return EXIT_OK;
    }
    if (!cli.matchedCommand) {
      const first = cli.args[0];
      const known = new Set(["--", "sessionDir", "json", "color", "pager", "version", "v", "help", "h"]);
      const unknown = Object.keys(parsed).find((k) => !known.has(k));
      if (unknown !== undefined) {
        throw new UsageError(`unknown option \`${typedOption(argv, unknown)}\``);
      }
      if (parsed.version) {
        io.line(VERSION);
        return EXIT_OK;
      }
      if (first !== undefined) {
        throw new UsageError(
          `unknown command \`${first}\``,
          suggestionHint(
            String(first),
            options.commands.map((c) => c.name),
          ) ?? "Run `pi-session --help` for the list of commands.",
        );
      }
      io.line(consoleInfoText(() => cli.outputHelp()).trimEnd());
      return EXIT_OK;
    }
    if (parsed.version) {
      throw new UsageError("--version takes no command");
    }
    cli.runMatchedCommand();
    if (!pending) return EXIT_OK;
    const code = await pending;
    await pager?.finish();
    return pager?.interrupted ? EXIT_INTERRUPTED : code;
  } catch (error) {
    await pager?.finish();
    // The reader quit the pager (or pressed Ctrl-C): nothing went wrong.
    if (error instanceof Error && error.name === "PagerClosed")
      return pager?.interrupted ? EXIT_INTERRUPTED : EXIT_OK;
    return report(io, error, options.argv, optionNames(cli), operands);
  }
}

/** A token that may be an option: `--name`, `--name=value` (a path like `--home-u-p--` is not). */
const OPTION_SHAPED = /^--[A-Za-z0-9]+(-[A-Za-z0-9]+)*(=[\s\S]*)?$/;
const PLACEHOLDER = /\u0000(\d+)\u0000/g;

/** The operands {@link hideOperands} took out of the command line, and how to put them back. */
export interface HiddenOperands {
  /** Puts the operands back into what cac parsed: its arguments and option values. */
  restore(cli: CAC): void;
  /** `text` with each placeholder shown as the operand it stands for. */
  shown(text: string): string;
}

/**
 * The command line with every operand that starts with `-` replaced by a placeholder cac takes
 * as an argument: each token after the first `--` (which is dropped: what follows is operands
 * only, as POSIX has it), and each `--` token before it that cannot be an option, such as the
 * project folders pi names `--<cwd>--` and the paths in them.
 */
export function hideOperands(argv: readonly string[]): { argv: string[]; operands: HiddenOperands } {
  const hidden: string[] = [];
  const hide = (token: string) => {
    hidden.push(token);
    return `\u0000${hidden.length - 1}\u0000`;
  };
  const end = argv.indexOf("--");
  const out: string[] = [];
  argv.forEach((token, i) => {
    if (i === end) return;
    const operand =
      (end >= 0 && i > end) || (token.startsWith("--") && token !== "--" && !OPTION_SHAPED.test(token));
    out.push(operand && token.startsWith("-") ? hide(token) : token);
  });
  const shown = (text: string) => text.replace(PLACEHOLDER, (_, n: string) => hidden[Number(n)] ?? "");
  const back = (value: unknown): unknown =>
    typeof value === "string" ? shown(value) : Array.isArray(value) ? value.map(back) : value;
  return {
    argv: out,
    operands: {
      shown,
      restore(cli) {
        if (hidden.length === 0) return;
        const args = cli.args as string[];
        args.splice(0, args.length, ...args.map(shown));
        for (const [name, value] of Object.entries(cli.options)) cli.options[name] = back(value);
      },
    },
  };
}

/** Every long option the matched command (or the program) takes, as typed: `--all-branches`. */
function optionNames(cli: CAC): string[] {
  const commands = [cli.globalCommand, ...(cli.matchedCommand ? [cli.matchedCommand] : [])];
  const names: string[] = [];
  for (const command of commands)
    for (const option of command.options) {
      const long = option.rawName.split(/[ ,]+/).find((part) => part.startsWith("--"));
      if (long) names.push(long);
    }
  return names;
}

/** The camelCase names of every option that takes a value (`--limit <n>`), of every command. */
function valuedOptions(cli: CAC): Set<string> {
  const names = new Set<string>();
  for (const command of [cli.globalCommand, ...cli.commands])
    for (const option of command.options) if (!option.isBoolean) for (const n of option.names) names.add(n);
  return names;
}

/**
 * `--all-branches` as `--allBranches` before `--` (cac's parser knows flags by their camelCase
 * names, and would take the next argument as a kebab-case flag's value); `--no-x` stays. A
 * negative number after an option that takes a value becomes its value (`--limit=-3`), so the
 * option, not the parser, reports it.
 */
export function camelOptions(argv: readonly string[], valued: ReadonlySet<string> = new Set()): string[] {
  const end = argv.indexOf("--");
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if ((end >= 0 && i >= end) || !token.startsWith("--") || token.startsWith("--no-")) {
      out.push(token);
      continue;
    }
    const eq = token.indexOf("=");
    const name = camel(eq < 0 ? token.slice(2) : token.slice(2, eq));
    const next = argv[i + 1];
    if (eq < 0 && valued.has(name) && next !== undefined && /^-\d/.test(next) && (end < 0 || i + 1 < end)) {
      out.push(`--${name}=${next}`);
      i++;
      continue;
    }
    out.push(`--${name}${eq < 0 ? "" : token.slice(eq)}`);
  }
  return out;
}

/** cac's camelCase of an option name (`bogus-thing` -> `bogusThing`). */
function camel(name: string): string {
  return name.replace(/([a-z])-([a-z])/g, (_, a: string, b: string) => a + b.toUpperCase());
}

/**
 * The option as the user typed it (`--bogus-thing`), found back from cac's camelCased key
 * (`bogusThing`); cac's own form when it cannot be found.
 */
export function typedOption(argv: readonly string[], key: string): string {
  for (const token of argv) {
    if (token === "--") break;
    if (token.startsWith("--")) {
      const name = token.slice(2).split("=")[0] ?? "";
      const bare = name.startsWith("no-") ? name.slice(3) : name;
      if (camel(name) === key || camel(bare) === key) return `--${name}`;
    } else if (token.startsWith("-") && token.length > 1 && key.length === 1) {
      if (token.slice(1).split("=")[0]?.includes(key)) return `-${key}`;
    }
  }
  return key.length > 1 ? `--${key}` : `-${key}`;
}

/** Prints a failure: its message on one line (a path or argument in it cannot break it), its details, a hint. */
function report(
  io: Io,
  error: unknown,
  argv: readonly string[],
  options: readonly string[],
  operands: HiddenOperands,
): number {
  if (error instanceof Error) error.message = operands.shown(error.message);
  if (error instanceof CliError) {
    io.error(oneLineField(error.message));
    for (const line of error.details) io.info(oneLineField(line));
    if (error.hint) io.info(io.err.dim(error.hint));
    return error.exitCode;
  }
  if (error instanceof Error && error.name === "CACError") {
    const unknown = /^Unknown option `-+([^`]+)`$/.exec(error.message);
    const typed = unknown?.[1] ? typedOption(argv, unknown[1]) : undefined;
    const message = typed ? `unknown option \`${typed}\`` : error.message;
    const hint = typed ? suggestionHint(typed, options) : undefined;
    io.error(oneLineField(message), hint ?? "Run `pi-session <command> --help` for usage.");
    return EXIT_USAGE;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.error(oneLineField(message));
  if (error instanceof Error && process.env.PI_SESSION_DEBUG && error.stack) io.info(error.stack);
  return EXIT_FAILURE;
}
