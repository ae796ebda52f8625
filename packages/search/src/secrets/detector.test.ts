/**
 * The shared secret detector on a corpus of planted fake credentials (every kind found, at
 * exactly the secret's place) and of decoys (nothing found), through render's redaction too.
 */
import { PLANTED_SECRETS, SECRET_DECOYS } from "@pi-session/testkit";
import { Redactor } from "@pi-session/render";
import { describe, expect, it } from "vitest";
import { secretDetector } from "./detector.js";

const detect = secretDetector();

describe("secretDetector", () => {
  for (const planted of PLANTED_SECRETS)
    it(`finds ${planted.kind}: ${planted.secret.slice(0, 12)}…`, () => {
      const found = detect(planted.text);
      const at = planted.text.indexOf(planted.secret);
      expect(found.map((f) => planted.text.slice(f.start, f.end))).toContain(planted.secret);
      expect(found.find((f) => f.start === at && f.end === at + planted.secret.length)?.kind).toBe(
        planted.kind,
      );
    });

  it("finds nothing in the decoys", () => {
    for (const decoy of SECRET_DECOYS) expect(detect(decoy), decoy).toEqual([]);
  });

  it("redacts through render's Redactor, leaving the rest of the text", () => {
    const redactor = new Redactor({ detector: detect });
    for (const planted of PLANTED_SECRETS) {
      const out = redactor.text(planted.text);
      expect(out).not.toContain(planted.secret);
      expect(out).toBe(planted.text.replace(planted.secret, `[REDACTED:${planted.kind}]`));
    }
    for (const decoy of SECRET_DECOYS) expect(redactor.text(decoy)).toBe(decoy);
  });
});
