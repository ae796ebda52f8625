/**
 * The prepared statements of one connection, each SQL text prepared once and reused. Every
 * query of the SQLite backend goes through it.
 */
import type { SqlArrayStatement, SqlConnection, SqlStatement } from "./driver.js";

export class StatementCache {
  private readonly statements = new Map<string, SqlStatement>();

  constructor(private readonly db: SqlConnection) {}

  /** The statement of `sql`, prepared on first use. */
  get(sql: string): SqlStatement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private readonly arrayStatements = new Map<string, SqlArrayStatement>();

  /** The statement of `sql` with rows as arrays, prepared on first use. */
  arrays(sql: string): SqlArrayStatement {
    let s = this.arrayStatements.get(sql);
    if (!s) {
      s = this.db.prepareArrays(sql);
      this.arrayStatements.set(sql, s);
    }
    return s;
  }

  clear(): void {
    this.arrayStatements.clear();
    this.statements.clear();
  }
}
