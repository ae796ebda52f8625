/** What the app bundle (generated from client/ before the tests) may hold. */
import { describe, expect, it } from "vitest";
import { CLIENT_SCRIPT, CLIENT_STYLE } from "./client-assets.js";

describe("the app bundle", () => {
  it("uses no eval, no HTML parsing and no network but its own API", () => {
    expect(CLIENT_SCRIPT).not.toMatch(
      /\beval\s*\(|new Function\s*\(|\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write/,
    );
    expect(CLIENT_SCRIPT).not.toMatch(/\b(XMLHttpRequest|WebSocket|sendBeacon|importScripts)\b/);
    const fetched = [...CLIENT_SCRIPT.matchAll(/fetch\(([^,)]+)/g)].map((m) => m[1]);
    expect(fetched.length).toBeGreaterThan(0);
    expect(CLIENT_STYLE).not.toMatch(/@import|url\(/);
  });
});
