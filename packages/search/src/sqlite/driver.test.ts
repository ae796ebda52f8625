import { describe, expect, it } from "vitest";
import { openConnection } from "./driver.js";

describe("openConnection", () => {
  it("binds every kind of empty byte array as an empty blob, never as NULL", async () => {
    const db = await openConnection(":memory:");
    try {
      db.exec("CREATE TABLE t (x BLOB NOT NULL)");
      const insert = db.prepare("INSERT INTO t VALUES (?)");
      const empties = [
        new Uint8Array(0),
        new Uint8Array(new ArrayBuffer(0)),
        new Uint8Array(new ArrayBuffer(8), 4, 0),
        Buffer.alloc(0),
        Buffer.allocUnsafe(0),
      ];
      for (const empty of empties) insert.run(empty);
      insert.run(new Uint8Array([1, 2]));
      expect(db.prepareArrays("SELECT typeof(x), length(x) FROM t").all()).toEqual([
        ...empties.map(() => ["blob", 0]),
        ["blob", 2],
      ]);
    } finally {
      db.close();
    }
  });
});
