/**
 * The session database's one SQLite binding: `node:sqlite`, built into Node >= 22.13 (the
 * packages need 22.19, pi's own floor), so nothing is compiled at install. Use
 * {@link openConnection}; the rest of the package sees only these small interfaces.
 */
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
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  /** {@link prepare} with rows as arrays: no object per row (a warm check reads thousands). */
  prepareArrays(sql: string): SqlArrayStatement;
  close(): void;
}

interface NodeStatement extends SqlStatement {
  setReturnArrays(on: boolean): void;
}

interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): NodeStatement;
  close(): void;
}

type DatabaseSyncClass = new (path: string) => DatabaseSync;

let DatabaseSyncCtor: DatabaseSyncClass | undefined;

/**
 * `node:sqlite`'s class, loaded on first use. Node 22 prints an "experimental" warning when the
 * module loads; that is not the user's concern, so it is held back here, the one place that
 * loads it (every other warning passes).
 */
function databaseSync(): DatabaseSyncClass {
  if (DatabaseSyncCtor) return DatabaseSyncCtor;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/SQLite/i.test(text)) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    // A synchronous load that bundlers leave alone (Node >= 22.3).
    const sqlite = process.getBuiltinModule("node:sqlite") as { DatabaseSync: DatabaseSyncClass };
    DatabaseSyncCtor = sqlite.DatabaseSync;
    return DatabaseSyncCtor;
  } finally {
    process.emitWarning = emit;
  }
}

/**
 * An empty blob `node:sqlite` binds as an empty blob: it binds a zero-length view whose buffer
 * has no memory (`new Uint8Array(new ArrayBuffer(0))`, what a read of nothing can give) as
 * NULL, which breaks `NOT NULL` columns.
 */
const EMPTY_BLOB = new Uint8Array(1).subarray(0, 0);

/** The parameters with every empty blob made {@link EMPTY_BLOB} (the same array when there is none). */
function bindable(params: SqlValue[]): SqlValue[] {
  for (const value of params)
    if (value instanceof Uint8Array && value.byteLength === 0)
      return params.map((p) => (p instanceof Uint8Array && p.byteLength === 0 ? EMPTY_BLOB : p));
  return params;
}

/** A statement whose parameters go through {@link bindable}. */
function statement(raw: NodeStatement): NodeStatement {
  return {
    run: (...params) => raw.run(...bindable(params)),
    get: (...params) => raw.get(...bindable(params)),
    all: (...params) => raw.all(...bindable(params)),
    iterate: (...params) => raw.iterate(...bindable(params)),
    setReturnArrays: (on) => raw.setReturnArrays(on),
  };
}

/** Opens a database file (`:memory:` for none). */
export async function openConnection(path: string): Promise<SqlConnection> {
  const db = new (databaseSync())(path);
  return {
    exec: (sql) => db.exec(sql),
    prepare: (sql) => statement(db.prepare(sql)),
    prepareArrays: (sql) => {
      const arrays = statement(db.prepare(sql));
      arrays.setReturnArrays(true);
      return arrays as SqlStatement as unknown as SqlArrayStatement;
    },
    close: () => db.close(),
  };
}
