/**
 * What the sync and the schema code need of a PostgreSQL connection: a query method, and for a
 * pool a way to take one client for a transaction. Structural, so `pg`'s `Pool` and
 * `PoolClient` fit and the published declarations name no type of `pg` (whose types are a
 * development dependency).
 */

/** The part of a query result used here. */
export interface QueryRows<R> {
  rows: R[];
  rowCount: number | null;
}

export interface Queryable {
  // biome-ignore lint/suspicious/noExplicitAny: the row type pg's own `query` takes.
  query<R extends { [column: string]: any } = { [column: string]: unknown }>(
    text: string,
    values?: unknown[],
  ): Promise<QueryRows<R>>;
}

/** One client taken from a pool (for a transaction), given back with `release`. */
export interface PooledClient extends Queryable {
  /** Gives the client back; with an error (or `true`), closes it instead. */
  release(destroy?: Error | boolean): void;
}

export interface ClientPool extends Queryable {
  connect(): Promise<PooledClient>;
}
