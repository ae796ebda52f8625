/**
 * One small interface over the two SQLite bindings the session database runs on:
 * `node:sqlite` (built into Node >= 22.13, no compile step) and `better-sqlite3` 12 (an
 * optional dependency, for Node 20). Use {@link openConnection}; both give the same schema,
 * the same SQL and the same results.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type DriverName = "node:sqlite" | "better-sqlite3";

export type SqlValue = number | string | bigint | Uint8Array | null;
export type SqlRow = Record<string, SqlValue>;

export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): SqlRow | undefined;
  all(...params: SqlValue[]): SqlRow[];
  iterate(...params: SqlValue[]): IterableIterator<SqlRow>;
}

/** A query whose rows are arrays of the column values in the SELECT's order. */
export interface SqlArrayStatement {
  all(...params: SqlValue[]): SqlValue[][];
}

export interface SqlConnection {
  readonly driver: DriverName;
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  /** {@link prepare} with rows as arrays: no object per row (a warm check reads thousands). */
  prepareArrays(sql: string): SqlArrayStatement;
  close(): void;
}

type ArrayCapable = SqlStatement & {
  /** node:sqlite (Node >= 22.16). */
  setReturnArrays?: (on: boolean) => void;
  /** better-sqlite3. */
  raw?: (on: boolean) => unknown;
};

function arrayStatement(statement: SqlStatement): SqlArrayStatement {
  const s = statement as ArrayCapable;
  if (typeof s.setReturnArrays === "function") s.setReturnArrays(true);
  else if (typeof s.raw === "function") s.raw(true);
  else return { all: (...params) => s.all(...params).map((row) => Object.values(row)) };
  return s as unknown as SqlArrayStatement;
}

/** No SQLite binding could be loaded (Node < 22.13 without the optional `better-sqlite3`). */
export class SqliteUnavailableError extends Error {
  override readonly name = "SqliteUnavailableError";
}

type Ctor = new (
  path: string,
  options?: Record<string, unknown>,
) => {
  exec(sql: string): unknown;
  prepare(sql: string): SqlStatement;
  close(): unknown;
};

// Specifiers in constants: neither has types for Node 20, and the optional one may be missing.
const NODE_SQLITE = "node:sqlite";
const BETTER_SQLITE3 = "better-sqlite3";

const loaded = new Map<DriverName, Promise<Ctor | undefined>>();

/** Whether this Node has an unflagged `node:sqlite` (22.13 and later, 23.4 and later). */
export function nodeHasSqlite(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
}

async function importNodeSqlite(): Promise<Ctor | undefined> {
  if (!nodeHasSqlite()) return undefined;
  // Node 22 warns that SQLite is experimental on first use; that is not the user's concern.
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/SQLite/i.test(text)) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const mod = (await import(NODE_SQLITE)) as { DatabaseSync: Ctor };
    return mod.DatabaseSync;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emit;
  }
}

/**
 * Where better-sqlite3's compiled addon is in the package whose `package.json` is given, or
 * undefined when it is not in the place a normal install (prebuilt or built) puts it.
 */
export function betterSqliteAddonPath(packageJson: string): string | undefined {
  const file = join(dirname(packageJson), "build", "Release", "better_sqlite3.node");
  return existsSync(file) ? file : undefined;
}

/**
 * better-sqlite3 through `require`, its addon handed to every connection (`nativeBinding`).
 * Left to itself it finds the addon with the `bindings` package, which probes a dozen paths
 * and builds Error stacks to find the package root; and an ESM `import` of a CommonJS package
 * runs Node's export lexer over it. When the addon is not where it is looked for, better-sqlite3
 * finds it its own way.
 */
function importBetterSqlite(): Promise<Ctor | undefined> {
  let Database: Ctor;
  const require = createRequire(import.meta.url);
  try {
    Database = require(BETTER_SQLITE3) as Ctor;
  } catch {
    return Promise.resolve(undefined);
  }
  let addon: unknown;
  try {
    const addonFile = betterSqliteAddonPath(require.resolve(`${BETTER_SQLITE3}/package.json`));
    addon = addonFile === undefined ? undefined : require(addonFile);
  } catch {
    // No `package.json` to resolve, or an addon built for another Node: the default loader then
    // finds it, or reports it when a database opens.
    addon = undefined;
  }
  if (addon === undefined) return Promise.resolve(Database);
  const nativeBinding = addon;
  return Promise.resolve(
    class extends Database {
      constructor(path: string, options: Record<string, unknown> = {}) {
        super(path, { nativeBinding, ...options });
      }
    },
  );
}

function load(driver: DriverName): Promise<Ctor | undefined> {
  let p = loaded.get(driver);
  if (!p) {
    p = driver === "node:sqlite" ? importNodeSqlite() : importBetterSqlite();
    loaded.set(driver, p);
  }
  return p;
}

/** The drivers this process can load, in the order they are preferred. */
export async function availableDrivers(): Promise<DriverName[]> {
  const out: DriverName[] = [];
  for (const d of ["node:sqlite", "better-sqlite3"] as const) if (await load(d)) out.push(d);
  return out;
}

/**
 * Opens a database file (`:memory:` for none) with the given driver, or the first available:
 * `node:sqlite`, then `better-sqlite3`. Throws {@link SqliteUnavailableError} when none loads.
 */
export async function openConnection(path: string, driver?: DriverName): Promise<SqlConnection> {
  const order: DriverName[] = driver ? [driver] : ["node:sqlite", "better-sqlite3"];
  for (const name of order) {
    const Database = await load(name);
    if (!Database) continue;
    const db = new Database(path);
    return {
      driver: name,
      exec: (sql) => void db.exec(sql),
      prepare: (sql) => db.prepare(sql),
      prepareArrays: (sql) => arrayStatement(db.prepare(sql)),
      close: () => void db.close(),
    };
  }
  throw new SqliteUnavailableError(
    driver
      ? `SQLite driver ${driver} is not available in Node ${process.versions.node}`
      : `no SQLite available: Node ${process.versions.node} has no node:sqlite (needs >= 22.13) and the optional dependency better-sqlite3 is not installed`,
  );
}
