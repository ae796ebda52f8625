/**
 * Tests of the layout: agent dir, sessions root resolution, cwd encoding, file names, ids and
 * the path guards.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { fcOptions, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  INVALID_SESSION_ID_MESSAGE,
  assertValidSessionId,
  isValidSessionId,
  parseSessionFileName,
  sessionFileName,
  sessionFilePath,
} from "./file-names.js";
import { UnsafePathError, isInside, resolvePiPath, safeJoin } from "./pi-paths.js";
import {
  encodeCwd,
  getAgentDir,
  getSessionsRoot,
  readSessionDirSetting,
  resolveSessionsRoot,
  sessionDirForCwd,
} from "./sessions-root.js";
import { listSessions } from "../listing/list.js";

const dirs = tempDirs("ns-layout-");
afterEach(dirs.cleanup);
const tmp = dirs.make;

describe("getAgentDir", () => {
  it("uses PI_CODING_AGENT_DIR, expanding ~", () => {
    expect(getAgentDir({ PI_CODING_AGENT_DIR: "/opt/agent" }, "/home/u")).toBe("/opt/agent");
    expect(getAgentDir({ PI_CODING_AGENT_DIR: "~/x" }, "/home/u")).toBe("/home/u/x");
    expect(getAgentDir({ PI_CODING_AGENT_DIR: "~" }, "/home/u")).toBe("/home/u");
  });
  it("converts a file:// URL, as pi's normalizePath", () => {
    expect(getAgentDir({ PI_CODING_AGENT_DIR: "file:///opt/my%20agent" }, "/home/u")).toBe("/opt/my agent");
  });
  it("defaults to ~/.pi/agent (also for an empty variable)", () => {
    expect(getAgentDir({}, "/home/u")).toBe("/home/u/.pi/agent");
    expect(getAgentDir({ PI_CODING_AGENT_DIR: "" }, "/home/u")).toBe("/home/u/.pi/agent");
  });
});

describe("resolveSessionsRoot", () => {
  it("prefers PI_CODING_AGENT_SESSION_DIR over the setting", () => {
    const agent = tmp();
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ sessionDir: "/from/settings" }));
    const r = resolveSessionsRoot({
      env: { PI_CODING_AGENT_SESSION_DIR: "~/s" },
      agentDir: agent,
      home: "/h",
    });
    expect(r).toEqual({ dir: "/h/s", source: "env", custom: true });
  });
  it("reads sessionDir from settings.json, expanding ~ and resolving relative paths against cwd", () => {
    const agent = tmp();
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ sessionDir: "~/sess" }));
    expect(resolveSessionsRoot({ env: {}, agentDir: agent, home: "/h" })).toEqual({
      dir: "/h/sess",
      source: "settings",
      custom: true,
    });
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ sessionDir: "rel/dir" }));
    expect(resolveSessionsRoot({ env: {}, agentDir: agent, cwd: "/work" }).dir).toBe("/work/rel/dir");
  });
  it("tolerates a missing or invalid settings.json and a non-string setting", () => {
    const agent = tmp();
    const def = { dir: join(agent, "sessions"), source: "default", custom: false };
    expect(resolveSessionsRoot({ env: {}, agentDir: agent })).toEqual(def);
    writeFileSync(join(agent, "settings.json"), "{not json");
    expect(resolveSessionsRoot({ env: {}, agentDir: agent })).toEqual(def);
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ sessionDir: 42 }));
    expect(resolveSessionsRoot({ env: {}, agentDir: agent })).toEqual(def);
    writeFileSync(join(agent, "settings.json"), "null");
    expect(getSessionsRoot({ env: {}, agentDir: agent })).toBe(def.dir);
  });
  it("merges the project's <cwd>/.pi/settings.json over the global one, as pi's SettingsManager", () => {
    const agent = tmp();
    const cwd = tmp();
    mkdirSync(join(cwd, ".pi"));
    const global = join(agent, "settings.json");
    const project = join(cwd, ".pi", "settings.json");
    const root = (env = {}) => resolveSessionsRoot({ env, agentDir: agent, cwd, home: "/h" });
    writeFileSync(global, JSON.stringify({ sessionDir: "/global" }));
    expect(root()).toEqual({ dir: "/global", source: "settings", custom: true });
    // A project value wins; relative and ~ values are resolved as pi's resolvePath.
    writeFileSync(project, JSON.stringify({ theme: "dark", sessionDir: "/project" }));
    expect(root()).toEqual({ dir: "/project", source: "settings", custom: true });
    expect(readSessionDirSetting(agent, cwd)).toBe("/project");
    expect(readSessionDirSetting(agent)).toBe("/global");
    writeFileSync(project, JSON.stringify({ sessionDir: "rel" }));
    expect(root().dir).toBe(join(cwd, "rel"));
    writeFileSync(project, `\ufeff${JSON.stringify({ sessionDir: "~/s" })}`);
    expect(root().dir).toBe("/h/s");
    writeFileSync(project, JSON.stringify({ sessionDir: "file:///tmp/a%20b" }));
    expect(root().dir).toBe("/tmp/a b");
    // A project key hides the global one whatever its value: "" or null give pi's default dir.
    for (const hidden of ['{"sessionDir":""}', '{"sessionDir":null}', '{"sessionDir":false}']) {
      writeFileSync(project, hidden);
      expect(root(), hidden).toEqual({ dir: join(agent, "sessions"), source: "default", custom: false });
    }
    // A project file without the key, empty, not JSON or not an object leaves the global one.
    for (const ignored of ['{"theme":"x"}', "", "{nope", "null", "5", "[]"]) {
      writeFileSync(project, ignored);
      expect(root().dir, ignored).toBe("/global");
    }
    // The environment and the --session-dir flag win over both, in that order.
    writeFileSync(project, JSON.stringify({ sessionDir: "/project" }));
    expect(root({ PI_CODING_AGENT_SESSION_DIR: "/env" })).toEqual({
      dir: "/env",
      source: "env",
      custom: true,
    });
    expect(
      resolveSessionsRoot({
        env: { PI_CODING_AGENT_SESSION_DIR: "/env" },
        agentDir: agent,
        cwd,
        sessionDir: "~/f",
      }),
    ).toEqual({ dir: join(homedir(), "f"), source: "flag", custom: true });
    expect(resolveSessionsRoot({ env: {}, agentDir: agent, cwd, sessionDir: "" }).dir).toBe("/project");
  });
  it("reads a global settings.json with a BOM and converts file:// URLs, as pi", () => {
    const agent = tmp();
    writeFileSync(join(agent, "settings.json"), `\ufeff${JSON.stringify({ sessionDir: "file:///srv/s" })}`);
    expect(resolveSessionsRoot({ env: {}, agentDir: agent, cwd: tmp() }).dir).toBe("/srv/s");
    const env = { PI_CODING_AGENT_SESSION_DIR: "file:///srv/e%20x" };
    expect(resolveSessionsRoot({ env, agentDir: agent }).dir).toBe("/srv/e x");
  });
  it("derives the agent dir from the environment when not given", () => {
    const agent = tmp();
    mkdirSync(join(agent, "x"));
    expect(getSessionsRoot({ env: { PI_CODING_AGENT_DIR: agent } })).toBe(join(agent, "sessions"));
  });
});

describe("encodeCwd", () => {
  it("matches pi's examples", () => {
    expect(encodeCwd("/home/u/p")).toBe("--home-u-p--");
    expect(encodeCwd("/a/b")).toBe(encodeCwd("/a-b")); // lossy, as upstream
    expect(encodeCwd("/x:y\\z")).toBe("--x-y-z--");
  });
  it("resolves the cwd as pi's resolvePath: ~ expanded, file:// URLs converted", () => {
    const home = homedir();
    expect(encodeCwd("~")).toBe(encodeCwd(home));
    expect(encodeCwd("~/p/q")).toBe(encodeCwd(join(home, "p/q")));
    expect(encodeCwd("file:///home/u/my%20p")).toBe("--home-u-my p--");
    expect(sessionDirForCwd("~/p", "/root/sessions")).toBe(
      join("/root/sessions", encodeCwd(join(home, "p"))),
    );
    expect(() => encodeCwd("file://host/x")).toThrow();
  });
  it("resolves the path first", () => {
    expect(encodeCwd("/home/u/p/../q/")).toBe("--home-u-q--");
    expect(encodeCwd("rel")).toBe(
      `--${resolve("rel")
        .slice(1)
        .replace(/[/\\:]/g, "-")}--`,
    );
  });
  it("never produces a separator, so the directory stays inside the root", () => {
    fc.assert(
      fc.property(fc.string(), (cwd) => {
        // (A file:// URL that fileURLToPath rejects throws, as in pi.)
        fc.pre(!cwd.includes("\0") && !cwd.startsWith("file://"));
        const name = encodeCwd(cwd);
        expect(name).not.toMatch(/[/\\]/);
        const dir = sessionDirForCwd(cwd, "/root/sessions");
        expect(isInside("/root/sessions", dir)).toBe(true);
        expect(dir).not.toBe("/root/sessions");
      }),
      fcOptions(),
    );
  });
  it("rejects NUL", () => {
    expect(() => sessionDirForCwd("/a\0b", "/root")).toThrow(UnsafePathError);
  });
});

describe("session ids", () => {
  it("follows pi's rule", () => {
    for (const ok of ["a", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "a.b_c-d", "A1"]) {
      expect(isValidSessionId(ok)).toBe(true);
    }
    for (const bad of ["", ".", "..", "-a", "a-", "a/b", "a\\b", "a\0b", "../x", "a b", "é", ".a", "a."]) {
      expect(isValidSessionId(bad)).toBe(false);
    }
    expect(isValidSessionId(3)).toBe(false);
  });
  it("throws pi's exact message", () => {
    expect(() => assertValidSessionId("../etc")).toThrow(INVALID_SESSION_ID_MESSAGE);
    expect(INVALID_SESSION_ID_MESSAGE).toBe(
      "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character",
    );
  });
});

describe("file names", () => {
  it("builds pi's name and parses it back", () => {
    const name = sessionFileName("2025-01-01T00:00:00.000Z", "0199abcd-0000-7000-8000-000000000001");
    expect(name).toBe("2025-01-01T00-00-00-000Z_0199abcd-0000-7000-8000-000000000001.jsonl");
    expect(parseSessionFileName(`/some/dir/${name}`)).toEqual({
      fileTimestamp: "2025-01-01T00-00-00-000Z",
      isoTimestamp: "2025-01-01T00:00:00.000Z",
      sessionId: "0199abcd-0000-7000-8000-000000000001",
    });
  });
  it("keeps underscores of the id", () => {
    expect(parseSessionFileName("2025-01-01T00-00-00-000Z_a_b.jsonl")?.sessionId).toBe("a_b");
  });
  it("rejects names that are not session files", () => {
    for (const bad of ["x.json", "_abc.jsonl", "2025_..jsonl", "nounderscore.jsonl", "2025_-bad-.jsonl"]) {
      expect(parseSessionFileName(bad)).toBeNull();
    }
  });
  it("refuses ids and timestamps that would leave the directory", () => {
    expect(() => sessionFileName("2025-01-01T00:00:00.000Z", "../x")).toThrow(INVALID_SESSION_ID_MESSAGE);
    expect(() => sessionFileName("2025/../../x", "abc")).toThrow(UnsafePathError);
    expect(() => sessionFileName("a\0b", "abc")).toThrow(UnsafePathError);
    expect(sessionFilePath("/d", "2025-01-01T00:00:00.000Z", "abc")).toBe(
      "/d/2025-01-01T00-00-00-000Z_abc.jsonl",
    );
  });
  it("round-trips any valid id and ISO time", () => {
    const arbId = fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,20}[A-Za-z0-9])?$/);
    const arbTime = fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString());
    fc.assert(
      fc.property(arbTime, arbId, (iso, id) => {
        const parsed = parseSessionFileName(sessionFileName(iso, id));
        expect(parsed?.sessionId).toBe(id);
        expect(parsed?.isoTimestamp).toBe(iso);
        expect(isInside("/d", sessionFilePath("/d", iso, id))).toBe(true);
      }),
      fcOptions(),
    );
  });
});

describe("safeJoin", () => {
  it("accepts one plain component only", () => {
    expect(safeJoin("/d", "a.jsonl")).toBe("/d/a.jsonl");
    for (const bad of ["", ".", "..", "a/b", "../a", "/abs", "a\\b", "a\0b"]) {
      expect(() => safeJoin("/d", bad)).toThrow(UnsafePathError);
    }
  });
});

describe("resolvePiPath", () => {
  it("is pi's resolvePath: ~ and file:// URLs, then absolute against a base", () => {
    const home = homedir();
    expect(resolvePiPath("~", "/b")).toBe(home);
    expect(resolvePiPath("~/x/../y", "/b")).toBe(join(home, "y"));
    expect(resolvePiPath("~x", "/b")).toBe("/b/~x");
    expect(resolvePiPath("file:///a/b%20c/", "/b")).toBe("/a/b c");
    expect(resolvePiPath("rel/./p/", "/base")).toBe("/base/rel/p");
    expect(resolvePiPath("rel", "~/base")).toBe(join(home, "base", "rel"));
    const dir = join(tmp(), "é x%");
    expect(resolvePiPath(pathToFileURL(dir).href)).toBe(dir);
    expect(() => resolvePiPath("file://host/x")).toThrow();
    expect(relative(resolvePiPath("."), process.cwd())).toBe("");
  });
});

describe("the header-cwd filter of a flat sessionDir (listSessions)", () => {
  it("keeps the sessions whose header cwd pi's resolvePath resolves to the cwd, cold and warm", async () => {
    const proj = join(tmp(), "my proj");
    mkdirSync(proj);
    const flat = tmp();
    const cacheDir = join(tmp(), "cache");
    const cwds: Record<string, string> = {
      abs: proj,
      slash: `${proj}/`,
      dots: `${proj}/../my proj`,
      tilde: `~/${relative(homedir(), proj)}`,
      url: pathToFileURL(proj).href,
      rel: relative(process.cwd(), proj) || ".",
      // Not this project; a URL pi's resolvePath rejects makes pi's whole list throw.
      other: "/elsewhere",
      empty: "",
      badUrl: "file://host/x",
      tildeElse: "~/elsewhere",
    };
    for (const [id, cwd] of Object.entries(cwds)) {
      const header = { type: "session", version: 3, id, timestamp: "2025-01-01T00:00:00.000Z", cwd };
      writeFileSync(join(flat, `2025-01-01T00-00-00-000Z_${id}.jsonl`), `${JSON.stringify(header)}\n`);
    }
    const expected = ["abs", "dots", "rel", "slash", "tilde", "url"];
    for (const cwd of [proj, `~/${relative(homedir(), proj)}`, pathToFileURL(proj).href]) {
      for (const cache of [false, { dir: cacheDir }, { dir: cacheDir }] as const) {
        const ids = (await listSessions(cwd, { sessionDir: flat, cache })).map((s) => s.id).sort();
        expect(ids, cwd).toEqual(expected);
      }
    }
    // Progress partials are filtered the same way.
    const partials: string[][] = [];
    await listSessions(proj, {
      sessionDir: flat,
      cache: false,
      onProgress: (_loaded, _total, partial) => {
        if (partial) partials.push(partial.map((s) => s.id).sort());
      },
    });
    expect(partials.at(-1)).toEqual(expected);
  });
});
