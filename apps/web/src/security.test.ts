import { describe, expect, it } from "vitest";
import {
  CONTENT_SECURITY_POLICY,
  bearerToken,
  crossSite,
  hostAllowed,
  isLoopback,
  newToken,
  splitHost,
  tokenMatches,
  tokenUrl,
} from "./security.js";

describe("the server's guards", () => {
  it("tokens are long, random and compared exactly", () => {
    const a = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(a);
    expect(tokenMatches(a, a)).toBe(true);
    expect(tokenMatches(`${a}x`, a)).toBe(false);
    expect(tokenMatches(a.slice(1), a)).toBe(false);
    expect(tokenMatches(undefined, a)).toBe(false);
    expect(tokenMatches("", a)).toBe(false);
  });

  it("the token travels in the URL's fragment and in a bearer header, never a cookie", () => {
    expect(tokenUrl("http://127.0.0.1:8080", "t")).toBe("http://127.0.0.1:8080/#token=t");
    expect(bearerToken("Bearer tok")).toBe("tok");
    expect(bearerToken("bearer  tok ")).toBe("tok");
    expect(bearerToken("Basic tok")).toBeUndefined();
    expect(bearerToken("Bearer a b")).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it("Host: an address or localhost on the server's port, or the --host name; never another name", () => {
    expect(splitHost("[::1]:8080")).toEqual({ host: "::1", port: "8080" });
    expect(hostAllowed("127.0.0.1:8080", 8080, "127.0.0.1")).toBe(true);
    expect(hostAllowed("localhost:8080", 8080, "127.0.0.1")).toBe(true);
    expect(hostAllowed("[::1]:8080", 8080, "::1")).toBe(true);
    expect(hostAllowed("192.168.1.5:8080", 8080, "0.0.0.0")).toBe(true);
    expect(hostAllowed("box.lan:8080", 8080, "box.lan")).toBe(true);
    expect(hostAllowed("evil.example:8080", 8080, "127.0.0.1")).toBe(false);
    expect(hostAllowed("127.0.0.1.nip.io:8080", 8080, "127.0.0.1")).toBe(false);
    expect(hostAllowed("127.0.0.1:8081", 8080, "127.0.0.1")).toBe(false);
    expect(hostAllowed("127.0.0.1", 8080, "127.0.0.1")).toBe(false);
    expect(hostAllowed(undefined, 8080, "127.0.0.1")).toBe(false);
    expect(hostAllowed("a b:8080", 8080, "127.0.0.1")).toBe(false);
  });

  it("Origin and Sec-Fetch-Site: only this server's own pages", () => {
    expect(crossSite(undefined, "127.0.0.1:1", undefined)).toBe(false);
    expect(crossSite("http://127.0.0.1:1", "127.0.0.1:1", "same-origin")).toBe(false);
    expect(crossSite("http://evil.example", "127.0.0.1:1", undefined)).toBe(true);
    expect(crossSite("null", "127.0.0.1:1", undefined)).toBe(true);
    expect(crossSite("https://127.0.0.1:1", "127.0.0.1:1", undefined)).toBe(true);
    expect(crossSite(undefined, "127.0.0.1:1", "cross-site")).toBe(true);
  });

  it("the policy allows no inline script, no eval, no other origin", () => {
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });

  it("loopback hosts", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"])
      expect(isLoopback(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.2", "example.com"]) expect(isLoopback(h), h).toBe(false);
  });
});
