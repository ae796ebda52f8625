/**
 * The command table, in the order `pi-session --help` lists them: each command's usage,
 * options, examples and a loader for its implementation. Declarations only, cheap to import
 * (`--version` and `--help` load it): each implementation and the layers it needs come with a
 * dynamic `import()` (a chunk of the bundle) when its command runs.
 */
import type { CAC, Command } from "cac";
import type { Action } from "../program.js";
import { SYNC_COMMAND } from "./sync-spec.js";

export interface CommandSpec {
  /** The command's name, as typed. */
  name: string;
  /** Declares usage, options and examples on the cac program. */
  declare(cli: CAC): Command;
  /** More help text, printed after the usage in `pi-session <name> --help`. */
  details?: string;
  /** Loads the implementation. */
  load(): Promise<Action>;
}

const SINCE_HELP = "(YYYY-MM-DD, ISO time, 12h / 7d / 2w / 3mo ago, today, yesterday)";

export const COMMANDS: CommandSpec[] = [
  {
    name: "ls",
    declare: (cli) =>
      cli
        .command(
          "ls [project]",
          "List sessions, newest first: the current project's, a project's (its folder or cwd), or --all",
        )
        .option("--all", "Sessions of every project")
        .option("--cwd <dir>", "Sessions of this project directory instead of the current one")
        .option("--limit <n>", "At most N sessions")
        .option("--since <date>", `Only sessions modified at or after DATE ${SINCE_HELP}`)
        .option("--until <date>", "Only sessions modified before the end of DATE (a day counts whole)")
        .option("--no-cache", "Do not read or write the listing cache (~/.cache/pi-session)")
        .option("--children", "Also list the forks and subagent sessions under each session (else counted)")
        .option("--secrets", "Only sessions holding secrets, with their kinds (see `secrets`)")
        .example("  $ pi-session ls")
        .example("  $ pi-session ls --children")
        .example("  $ pi-session ls ~/projects/webapp")
        .example("  $ pi-session ls ~/.pi/agent/sessions/--home-u-webapp--/")
        .example("  $ pi-session ls --all --limit 20 --json"),
    details: `[project] is a project's directory (its cwd), or its folder in the store
(\`~/.pi/agent/sessions/--home-u-webapp--\`, listed whatever the headers say); a folder of
session files elsewhere (a copy of one) is listed as it is. Paths that start with -- work as
they are, or after \`--\`. Without it: the current directory's project, or the nearest
enclosing directory that has sessions (said on stderr).`,
    load: async () => (await import("./ls.js")).action,
  },
  {
    name: "show",
    declare: (cli) =>
      cli
        .command("show <session>", "Print the transcript of the active branch")
        .option("--leaf <id>", "Show the branch ending at this entry instead of the last one")
        .option("--all-branches", "Show every entry in file order, marking where branches start")
        .option("--full", "Do not fold long tool results, outputs, thinking and summaries")
        .option("--last <n>", "Only the last N entries (after --since / --until)")
        .option("--since <date>", `Only entries at or after DATE ${SINCE_HELP}`)
        .option("--until <date>", "Only entries before the end of DATE (a day counts whole)")
        .example("  $ pi-session show latest")
        .example("  $ pi-session show latest --last 20")
        .example("  $ pi-session show 019a4c1e --leaf b2000009 --full"),
    load: async () => (await import("./show.js")).action,
  },
  {
    name: "pick",
    declare: (cli) =>
      cli
        .command("pick [query]", "Choose a session interactively (type to filter); prints its path")
        .option("--resume", "Resume the chosen session in pi (as `resume` does) instead of printing its path")
        .option("--exec", "The older name of --resume")
        .option("--fzf", "Choose with fzf instead of the built-in picker")
        .example("  $ pi-session pick")
        .example('  $ pi-session show "$(pi-session pick)"')
        .example("  $ pi-session pick parser --resume"),
    details: `Every project's sessions, newest first. Typing filters them: through the session database's
search when its index exists (\`pi-session search\` builds it), else by the name, first message
and project (every word, any case). Up/Down or Ctrl-P/Ctrl-N move, Enter chooses, Esc or
Ctrl-C quits. A terminal at least 100 columns wide shows the selected session's last messages.
Needs a terminal (stdin and stderr); the path goes to stdout, so \`$(pi-session pick)\` works.
Exit codes: 0 chosen, 130 cancelled, 2 not on a terminal; with --resume, pi's.`,
    load: async () => (await import("./pick.js")).action,
  },
  {
    name: "resume",
    declare: (cli) =>
      cli
        .command(
          "resume <session>",
          "Resume a session in pi: `pi --session <path>` in the session's own directory",
        )
        .option("--print", "Print the command line (shell-quoted) instead of running it")
        .option(
          "--here",
          "Fork the session into the current directory instead (pi --fork): for a session whose directory is gone",
        )
        .example("  $ pi-session resume latest")
        .example("  $ pi-session resume 019a4c1e --print")
        .example("  $ pi-session resume 'flaky upload test'")
        .example("  $ pi-session resume 019a4c1e --here"),
    details: `<session> is a path, an id or a unique prefix of one, or \`latest\`; anything else is searched
for (as \`search\` does): one matching session is resumed, several are listed. Runs the \`pi\` found
on PATH in the session's working directory; its exit code is returned. A session whose directory no
longer exists is refused with the --here command that forks it into the current directory.
--json prints the path, the directory and the command's parts instead.`,
    load: async () => (await import("./resume.js")).action,
  },
  {
    name: "tree",
    declare: (cli) =>
      cli
        .command("tree <session>", "Print every entry of a session as a tree (branches, labels, leaf)")
        .option("--full", "Do not collapse long linear runs")
        .example("  $ pi-session tree latest")
        .example("  $ pi-session tree 019a4c1e --json | jq '.entries[] | select(.label)'"),
    load: async () => (await import("./tree.js")).action,
  },
  {
    name: "follow",
    declare: (cli) =>
      cli
        .command("follow <session>", "Watch a session as it is written: its branch, then each new entry")
        .option("--last <n>", "Start with only the last N items of the current branch")
        .option("--no-history", "Start with nothing: only entries written from now on")
        .option("--full", "Do not fold long tool results, outputs, thinking and summaries")
        .option(
          "--poll-ms <n>",
          "Also check the file every N ms (default 1000; file-system events come first)",
        )
        .example("  $ pi-session follow latest")
        .example("  $ pi-session follow 019a4c1e --no-history --json | jq -c .type"),
    details: `Branch switches (a new entry whose parent is not the previous leaf) and compactions are
announced. A file rewritten or replaced (pi migrating it, a repair) is read again; only the
entries not shown yet are printed. Runs until Ctrl-C (exit 0), or until its output pipe closes.
--json prints each entry as one JSON line.`,
    load: async () => (await import("./follow.js")).action,
  },
  {
    name: "diff",
    declare: (cli) =>
      cli
        .command(
          "diff <session> [entryA] [entryB]",
          "Compare two branches: their common ancestor and what each did after it",
        )
        .option("--parent", "Compare a fork's current branch with its parent session's")
        .example("  $ pi-session diff latest")
        .example("  $ pi-session diff 019a4c1e b2000004 b2000006 --json")
        .example("  $ pi-session diff latest --parent"),
    details: `Each side: its entries after the common ancestor, messages by role, tool calls by tool,
the files it read, edited or wrote, tokens and cost, and how it ended (the last assistant
message's stop reason). Without entries: the current leaf (left) against the most recent
other leaf (right). Entry ids may be unique prefixes. --parent compares the fork (right) with
the session it was forked from (left), entries matched by id.`,
    load: async () => (await import("./diff.js")).action,
  },
  {
    name: "context",
    declare: (cli) =>
      cli
        .command("context <session>", "Print the context the model sees (pi's buildSessionContext)")
        .option("--leaf <id>", "Rebuild the context of the branch ending at this entry")
        .option(
          "--llm",
          "Convert to provider messages (summaries, bash runs and custom messages become user text)",
        )
        .option("--full", "Do not fold long texts (text output only)")
        .example("  $ pi-session context latest --json > context.json")
        .example("  $ pi-session context 019a4c1e --llm"),
    load: async () => (await import("./context.js")).action,
  },
  {
    name: "export",
    declare: (cli) =>
      cli
        .command(
          "export <session>",
          "Export a session to share: Markdown, one HTML page, JSON or a clean JSONL",
        )
        .option(
          "--format <format>",
          "md, html, json (the document model) or jsonl (default: from -o, else md)",
        )
        .option("-o, --output <file>", "Write to FILE (Markdown images go beside it) instead of stdout")
        .option(
          "--leaf <id>",
          "The branch ending at this entry instead of the session's leaf (html: that branch's entries only)",
        )
        .option("--all-branches", "Every branch, depth first, with branch points marked (jsonl: every entry)")
        .option("--context", "What the model is sent at the leaf (pi's buildSessionContext)")
        .option("--full", "Keep long tool output whole (Markdown)")
        .option("--redact", "Remove API keys, tokens, private keys and passwords; drop thinking signatures")
        .option("--redact-pattern <regex>", "Also redact what this regular expression matches (repeatable)")
        .example("  $ pi-session export latest -o session.md")
        .example("  $ pi-session export 019a4c1e --format html --redact -o session.html")
        .example("  $ pi-session export latest --leaf b2000009 --format jsonl > branch.jsonl"),
    details: `Formats:
  md     headings per turn, tool calls and output in fenced blocks, long output cut with a note
         (--full keeps it); with -o, images are written to <name>-images/ beside the file
  html   one self-contained page: the whole tree (with --leaf, that branch alone), branch
         switching, pi's /tree filters, phrase search, #<id> links, light and dark; opens
         offline, no request leaves the page
  json   the render layer's document model of the view (see docs/cli.md)
  jsonl  the branch (or with --all-branches every entry) as valid v3 lines, header first
--redact prints what it removed, by kind, to stderr.`,
    load: async () => (await import("./export.js")).action,
  },
  {
    name: "validate",
    declare: (cli) =>
      cli
        .command(
          "validate [...sessions]",
          "Check session files: bad lines, header, schema of every line, tree problems, version",
        )
        .option("--all", "Every session file of the store (default: the current project's sessions)")
        .option(
          "--strict",
          "Use the strict schema: known entry types only, no unknown fields (pi itself is lenient)",
        )
        .option(
          "--max-diagnostics <n>",
          "List at most N problems per file (default 1000; `all`); all are counted",
        )
        .example("  $ pi-session validate --all")
        .example("  $ pi-session validate latest 019a4c1e ~/old-sessions")
        .example("  $ pi-session validate broken.jsonl --json"),
    details: `Sessions: ids, id prefixes, \`latest\`, file paths and directories (searched for *.jsonl);
--all: the whole store; nothing: the current project's sessions. A summary line ends the report.
Exit codes: 0 no errors (warnings and files needing migration alone are fine); 1 a file has an
error; 2 usage error; 3 a file or directory could not be read (the rest checked).`,
    load: async () => (await import("./validate.js")).action,
  },
  {
    name: "repair",
    declare: (cli) =>
      cli
        .command(
          "repair [...sessions]",
          "Show what repair would fix; WRITES the files with --write (atomic, backup and removed bytes kept)",
        )
        .option("--write", "Apply the fix: atomic rewrite, backup and sidecar of the removed bytes")
        .option("--all", "Every session file of the store (default: the current project's sessions)")
        .example("  $ pi-session repair latest")
        .example("  $ pi-session repair --all")
        .example("  $ pi-session repair broken.jsonl --write"),
    details: `Fixes:
  - a torn tail (the last line has no \\n): a complete JSON line gets its \\n; a fragment
    (half a line) is cut
  - extra "session" header lines after the first (pi ignores them; an old pi bug wrote them):
    those lines are cut; the entries before, between and after them stay, in order
Every cut byte is saved, in file order, to <file>.removed-<time>, and the previous file is kept
as <file>.bak-<time>. Other problems (malformed lines in the middle, a missing header, tree
problems) are reported and left alone: pi skips malformed lines, so cutting them gains nothing.

Sessions as for validate (ids, \`latest\`, paths, directories, --all, or the current project);
several end with a summary line.
Exit codes: 0 nothing to fix (or fixed with --write); 1 a dry run found something to fix, or
a file cannot be repaired; 3 a file or directory could not be read (the rest done).`,
    load: async () => (await import("./repair.js")).action,
  },
  {
    name: "migrate",
    declare: (cli) =>
      cli
        .command(
          "migrate [...sessions]",
          "Show what migrating to v3 changes; WRITES the files with --write (atomic, with a backup)",
        )
        .option("--write", "Rewrite each file that changes, atomically, keeping <file>.bak-<time> next to it")
        .option("--all", "Every session file of the store (default: the current project's sessions)")
        .option("--verbose", "List every file (a dry run lists the first 10 that change, then counts)")
        .option("--deterministic", "Derive new v1 entry ids from the session id and line (the default)")
        .option("--random-ids", "Draw new v1 entry ids at random, as pi does")
        .example("  $ pi-session migrate --all")
        .example("  $ pi-session migrate old.jsonl --write"),
    details: `Sessions as for validate (ids, \`latest\`, paths, directories, --all, or the current project).
A summary line ends the report. Exit codes: 0 nothing to migrate (or all written with --write);
1 a dry run found files to migrate, or a write failed; 3 a file or directory could not be read.`,
    load: async () => (await import("./migrate.js")).action,
  },
  {
    name: "search",
    declare: (cli) =>
      cli
        .command(
          "search <query>",
          "Find sessions by what was said in them (full-text, through the session database)",
        )
        .option("--here", "Only sessions of this directory's project and its subdirectories")
        .option("--project <dir>", "Only sessions whose project is DIR or inside it")
        .option("--since <date>", `Only entries at or after DATE ${SINCE_HELP}`)
        .option("--until <date>", "Only entries before the end of DATE (a day counts whole)")
        .option("--role <role>", "Only entries of user, assistant or tool (comma list)")
        .option("--tool <name>", "Only sessions that called this tool")
        .option("--model <model>", "Only sessions that used this model (provider/model or model)")
        .option("--file <path>", "Only sessions whose tool calls touched PATH (or a path ending in /PATH)")
        .option("--errored", "Only sessions with a failed tool call (isError, or a non-zero bash exit)")
        .option("--named", "Only sessions that have a name")
        .option(
          "--all-branches",
          "Rank hits on abandoned branches with the others (default: current branch first)",
        )
        .option("--thinking", "Also search the assistant's thinking")
        .option("--no-tool-output", "Leave tool results and bash output out")
        .option("--files", "Print only the paths of matching sessions")
        .option("--limit <n>", "At most N sessions (default 20)")
        .option(
          "--time-limit <seconds>",
          "Stop checking candidates after this long, saying so (default 30; 0: no limit)",
        )
        .option("--no-index", "Do not read or write the session database (index in memory)")
        .option("--db [url]", "Search a team's PostgreSQL database instead (bare: PI_SESSION_DATABASE_URL)")
        .option("--source <name>", "With --db: only this source's sessions (repeatable, or a comma list)")
        .example("  $ pi-session search parser timeout")
        .example('  $ pi-session search "auth.ts" --here --role assistant')
        .example("  $ pi-session search 're:fix(ed)? the \\w+ test' --since 7d --json")
        .example("  $ pi-session search auth.ts --db postgresql://reader@db.internal/pi --source ada@laptop"),
    details: `Query:
  words        ANDed; found by their stem (parsing finds parse, parser), also inside
               identifiers (timeout finds parserTimeout); the last word is also a prefix
  "a phrase"   a case-insensitive substring starting where a word or identifier part starts;
               so is any term with a non-letter in it (auth.ts finds getAuth.ts, not
               oauth.ts) and CJK text (anywhere)
  -term        the entry must not contain it
  re:REGEX     a regular expression (JavaScript syntax, case-insensitive) run in linear time:
               no backreferences or lookaround (slower: it checks candidates)
Ranked by BM25 over the words (current branch first); without words, newest first.
The database is a cache in $XDG_CACHE_HOME/pi-session (~/.cache/pi-session); every search
first brings it up to date; a damaged or unwritable one is rebuilt, or the files answer.
Exit codes: 0 found, 1 nothing found (or a failure), 2 usage error, 3 files left out
(unreadable, each reported).`,
    load: async () => (await import("./search.js")).action,
  },
  {
    name: "mcp",
    declare: (cli) =>
      cli
        .command(
          "mcp",
          "Serve the agent tools over MCP (stdio): search, read and sum up past sessions (read-only)",
        )
        .option(
          "--max-chars <n>",
          "Most characters of one answer (default 20000; a client may ask for fewer)",
        )
        .option("--no-redact", "Leave secrets in the answers (default: removed as export --redact does)")
        .option(
          "--time-limit <seconds>",
          "Most time a search may take checking candidates (default 10; 0: no limit)",
        )
        .option(
          "--db [url]",
          "Answer from a team's PostgreSQL database instead (bare: PI_SESSION_DATABASE_URL)",
        )
        .option("--source <name>", "With --db: only this source's sessions (repeatable, or a comma list)")
        .example("  $ pi-session mcp")
        .example("  $ claude mcp add pi-sessions -- pi-session mcp")
        .example("  $ pi-session mcp --db postgresql://reader@db.internal/pi --source ada@laptop"),
    details: `An MCP server on stdin/stdout for an agent (pi, Claude Code, Codex, Cursor, any MCP client):
  search_sessions  {query, project?, since?, until?, role?, limit?}   hits with session and entry ids
  read_session     {session, entryId?, before?, after?, limit?}       a transcript, or the entries around one
  session_context  {session}                                          what the model saw at the leaf
  list_sessions    {project?, since?, limit?}                         sessions, newest first
  usage_stats      {since?, until?, by?}                              tokens and cost
Every tool also takes maxChars (at most --max-chars). Answers come from the session database
\`search\` uses, brought up to date before each answer. Nothing is ever written to a session.
Runs until the client closes stdin (or Ctrl-C). The README shows each client's configuration.`,
    load: async () => (await import("./mcp.js")).action,
  },
  {
    name: "files",
    declare: (cli) =>
      cli
        .command(
          "files [path]",
          "Which sessions read, edited or wrote a file (or under a directory); --session: one session's files",
        )
        .option("--session <session>", "The files this session touched, changes first")
        .option("--all", "Also touches on abandoned branches (default: each session's current branch)")
        .option("--no-index", "Do not read or write the session database (index in memory)")
        .example("  $ pi-session files src/auth.ts")
        .example("  $ pi-session files ~/projects/app/src --all --json")
        .example("  $ pi-session files --session latest"),
    details: `A file is touched by a tool call that reads, edits or writes it: pi's read, edit and write,
and the file tools of other agents and extensions (Read, Edit, MultiEdit, Write, read_file,
write_file, edit_file, create_file, the text editor's view/create/str_replace). PATH is
resolved against the current directory (~ is your home); each call's path against its
session's cwd. A directory lists the touches of every file under it. Sessions come newest
first (by their latest touch), each touch with its entry id. Through the session database
(like search). Exit codes: 0 found, 1 nothing found, 2 usage error.`,
    load: async () => (await import("./files.js")).action,
  },
  {
    name: "secrets",
    declare: (cli) =>
      cli
        .command(
          "secrets [...sessions]",
          "Find credentials in sessions (masked); WRITES the files with --redact --write (atomic, backup kept)",
        )
        .option("--all", "Every session file of the store (default: the current project's sessions)")
        .option("--redact", "Show what replacing the secrets with [REDACTED:<kind>] markers would change")
        .option(
          "--write",
          "With --redact: rewrite each file that holds one (atomic, keeping <file>.bak-<time>)",
        )
        .option("--no-backup", "With --redact --write: keep no backup (a backup still holds the secrets)")
        .option("--no-index", "Do not read or write the session database (every file read)")
        .example("  $ pi-session secrets --all")
        .example("  $ pi-session secrets latest --json")
        .example("  $ pi-session secrets 019a4c1e --redact --write"),
    details: `Finds API keys and tokens (cloud, code hosts, chat services, LLM providers, payment and
package registries), private key blocks, connection strings with passwords, bearer tokens,
JWTs and secret-named assignments in every part of a session, with secretlint's recommended
rules (see docs/decisions/153-secret-rules.md). Each finding: line, entry id, kind and a preview
with the secret masked; a secret is never printed, in --json either.
Sessions as for validate (ids, \`latest\`, paths, directories, --all, or the current project).
Exit codes: 0 none found (or all replaced with --write); 1 found, or a rewrite failed;
3 a file or directory could not be read (the rest scanned).`,
    load: async () => (await import("./secrets.js")).action,
  },
  {
    name: "serve",
    declare: (cli) =>
      cli
        .command("serve", "Start the local web app: browse, search and watch every session (read-only)")
        .option("--port <n>", "Port to listen on (default 0: a free one)")
        .option(
          "--host <host>",
          "Address to listen on (default 127.0.0.1; other machines can reach any other)",
        )
        .option("--open", "Open the app in the desktop's browser")
        .option("--db [url]", "Serve a team's PostgreSQL database instead (bare: PI_SESSION_DATABASE_URL)")
        .option("--source <name>", "With --db: only this source's sessions (repeatable, or a comma list)")
        .example("  $ pi-session serve --open")
        .example("  $ pi-session serve --port 8080 --session-dir ~/backup/sessions")
        .example("  $ pi-session serve --db postgresql://reader@db.internal/pi --source ada@laptop"),
    details: `Prints the app's URL, its token in the fragment (#token=...), on stdout; runs until Ctrl-C.
Every API request needs the token (the page keeps it for this port only, never in a cookie);
requests naming another Host or from another site's page are refused, and nothing is ever
written. Changes on disk appear within a second; with
--db, what a sync sends appears within a few seconds (the database is looked at every 2 s).`,
    load: async () => (await import("./serve.js")).action,
  },
  {
    name: "stats",
    declare: (cli) =>
      cli
        .command("stats [session]", "Tokens and cost, counted once per fork lineage")
        .option("--all", "Every session of every project (default: the current directory's project)")
        .option("--by <group>", "Rows by day, week, month, session, project or model (with --db: or source)")
        .option("--breakdown", "Split each day, week, month, session or project by model")
        .option("--since <date>", `Only usage at or after DATE ${SINCE_HELP}`)
        .option("--until <date>", "Only usage before the end of DATE (a day counts whole)")
        .option("--timezone <zone>", "Days, weeks, months and dates in this IANA time zone (default: local)")
        .option(
          "--db [url]",
          "Report over a team's PostgreSQL database (with --all; bare: PI_SESSION_DATABASE_URL)",
        )
        .option("--source <name>", "With --db: only this source's sessions (repeatable, or a comma list)")
        .example("  $ pi-session stats --all --by model")
        .example("  $ pi-session stats --all --by week --breakdown --since 2026-03-01")
        .example("  $ pi-session stats latest --json")
        .example("  $ pi-session stats --all --db --by source --since 2026-03-01"),
    details: `Counted once per lineage: a fork's copy of its parent's entries is the parent's spend.
Weeks start on Monday (the key is that Monday's date); --since and --until dates are days in
--timezone. A cost of 0 next to tokens is not trusted: it is marked * (? when nothing in the
row has a price) and its tokens are counted apart. Costs are to the cent here, to 1e-6 in --json.`,
    load: async () => (await import("./stats.js")).action,
  },
  SYNC_COMMAND,
  {
    name: "fork",
    declare: (cli) =>
      cli
        .command(
          "fork <session>",
          "WRITES a new session: one branch (--leaf) or a copy into another project (--to); prints its path",
        )
        .option("--leaf <id>", "Keep only the branch ending at this entry (pi's createBranchedSession)")
        .option("--to <cwd>", "Copy the whole session into this project directory (pi's forkFrom)")
        .example("  $ pi-session fork latest --leaf b2000009")
        .example("  $ pi-session fork 019a4c1e --to ~/projects/other"),
    load: async () => (await import("./fork.js")).action,
  },
  {
    name: "name",
    declare: (cli) =>
      cli
        .command(
          "name <session> <name>",
          "WRITES: set the session's name (appends a session_info entry; a v1/v2 file is converted, with a backup)",
        )
        .example('  $ pi-session name latest "upload rate limiting"'),
    load: async () => (await import("./name.js")).action,
  },
  {
    name: "label",
    declare: (cli) =>
      cli
        .command(
          "label <session> <entry-id> [label]",
          "WRITES: label an entry, or clear its label with --clear (appends a label entry)",
        )
        .option("--clear", "Remove the entry's label (appends a clearing label entry)")
        .example("  $ pi-session label latest b2000006 plan")
        .example("  $ pi-session label latest b2000006 --clear"),
    load: async () => (await import("./label.js")).action,
  },
  {
    name: "rm",
    declare: (cli) =>
      cli
        .command("rm <...sessions>", "REMOVES sessions: to the trash where one exists, else deleted")
        .option("-y, --yes", "Do not ask (needed when stdin is not a terminal)")
        .option("--keep-companions", "Leave the session's backups and sidecars where they are")
        .example("  $ pi-session rm 019a4c1e")
        .example("  $ pi-session rm old.jsonl other.jsonl --yes"),
    load: async () => (await import("./rm.js")).action,
  },
];
