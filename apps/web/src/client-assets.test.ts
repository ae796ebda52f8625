/** What the app bundle (generated from client/ before the tests) may hold. */
import { describe, expect, it } from "vitest";
import { HIGHLIGHT_ELEMENT } from "../../../packages/render/scripts/browser-assets.mjs";
import { CLIENT_SCRIPT, CLIENT_STYLE } from "./client-assets.js";

describe("the app bundle", () => {
  it("uses no eval, no HTML parsing and no network but its own API", () => {
    // But for highlight.js's highlightElement, never called (render's browser-assets.mjs).
    expect(CLIENT_SCRIPT.replace(HIGHLIGHT_ELEMENT, "")).not.toMatch(
      /\beval\s*\(|new Function\s*\(|\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write/,
    );
    expect(CLIENT_SCRIPT).not.toMatch(/\b(XMLHttpRequest|WebSocket|sendBeacon|importScripts)\b/);
    const fetched = [...CLIENT_SCRIPT.matchAll(/fetch\(([^,)]+)/g)].map((m) => m[1]);
    expect(fetched.length).toBeGreaterThan(0);
    expect(CLIENT_STYLE).not.toMatch(/@import|url\(/);
  });
});
