/**
 * Redaction: the secrets of the common providers in their real shapes, private keys, bearer
 * and basic credentials, passwords in URLs, .env and JSON assignments, a caller's patterns,
 * signatures dropped, counts by kind, and what must not change (ids, harmless text, shape).
 */
import { describe, expect, it } from "vitest";
import { everyKindSession } from "../test/sessions.js";
import { compilePattern, createRenderSession, Redactor, redactSession } from "./index.js";

const SAMPLES: [kind: string, text: string, secret: string][] = [
  [
    "openai",
    "key: sk-proj-Abc123def456GHI789jkl012MNO345pqr678",
    "sk-proj-Abc123def456GHI789jkl012MNO345pqr678",
  ],
  [
    "openai",
    "sk-Xy12ab34cd56ef78gh90ij12kl34mn56op78qr90st12",
    "sk-Xy12ab34cd56ef78gh90ij12kl34mn56op78qr90st12",
  ],
  [
    "anthropic",
    "sk-ant-api03-Zyx987Wvu654Tsr321Qpo098Nml765-AAAA",
    "sk-ant-api03-Zyx987Wvu654Tsr321Qpo098Nml765-AAAA",
  ],
  [
    "openrouter",
    "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef",
    "sk-or-v1-0123456789abcdef0123456789abcdef",
  ],
  [
    "github",
    "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  ],
  [
    "github",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "github_pat_11ABCDEFG0123456789_abcdefgh",
  ],
  ["gitlab", "glpat-abcdefghij0123456789", "glpat-abcdefghij0123456789"],
  ["aws", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"],
  ["google", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"],
  ["google", "ya29.a0AfH6SMBx0123456789abcdefghij", "ya29.a0AfH6SMBx0123456789abcdefghij"],
  [
    "slack",
    "xoxb-123456789012-1234567890123-abcdefghijklmnop",
    "xoxb-123456789012-1234567890123-abcdefghijklmnop",
  ],
  [
    "slack",
    "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
    "hooks.slack.com/services/T000/B000/XXXXXXXX",
  ],
  ["stripe", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"],
  ["stripe", "whsec_abcdefghijklmnopqrstuvwx", "whsec_abcdefghijklmnopqrstuvwx"],
  ["huggingface", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"],
  ["npm", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghijklmnopqrstuvwxyz0123456789"],
  [
    "groq",
    "gsk_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL",
    "gsk_abcdefghijklmnopqrstuvwxyz0123456789",
  ],
  ["xai", "xai-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL", "xai-abcdefghijklmnopqrstuvwxyz0123456789"],
  [
    "jwt",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
  ],
  ["bearer", "Authorization: Bearer abc.def-ghi_jkl012345", "abc.def-ghi_jkl012345"],
  ["basic-auth", "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEyMw=="],
  ["url-password", "postgres://admin:hunter2secret@db.example.com/app", "hunter2secret"],
  ["assignment", "DATABASE_PASSWORD=correct-horse-battery", "correct-horse-battery"],
  ["assignment", "export GITHUB_TOKEN='abc def ghi'", "abc def ghi"],
  ["assignment", '{"apiKey": "k3y-v4lue-123456"}', "k3y-v4lue-123456"],
  ["assignment", "client_secret: s3cr3t-v4lue-xyz", "s3cr3t-v4lue-xyz"],
];

const PRIVATE_KEY = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACDqfpTm9SwpjJ2pmc6GXQwHV8vL0JXbG3JbYTz8kqbQhQAAAJj1ZRbP9WUW
-----END OPENSSH PRIVATE KEY-----`;

describe("Redactor", () => {
  it.each(SAMPLES)("finds a %s secret", (kind, text, secret) => {
    const redactor = new Redactor();
    const out = redactor.text(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(`[REDACTED:${kind}]`);
    expect(redactor.report.counts[kind]).toBeGreaterThanOrEqual(1);
  });

  it("removes private key blocks, whole or cut off", () => {
    const redactor = new Redactor();
    expect(redactor.text(`before\n${PRIVATE_KEY}\nafter`)).toBe("before\n[REDACTED:private-key]\nafter");
    const torn = PRIVATE_KEY.split("\n").slice(0, 3).join("\n");
    expect(redactor.text(`cat id\n${torn}`)).toBe("cat id\n[REDACTED:private-key]");
    expect(redactor.report.counts).toEqual({ "private-key": 2 });
  });

  it("keeps what is around a credential, and what only looks like one", () => {
    const redactor = new Redactor();
    expect(redactor.text("curl -H 'Authorization: Bearer abcdefghijklmnop1234' x")).toBe(
      "curl -H 'Authorization: Bearer [REDACTED:bearer]' x",
    );
    expect(redactor.text("OPENAI_API_KEY=sk-proj-Abc123def456GHI789jkl012MNO345")).toBe(
      "OPENAI_API_KEY=[REDACTED:openai]",
    );
    const harmless = [
      "the task-management-board ids are fine",
      "const tokens = countTokens(text);",
      "password = input()",
      "see https://example.com/path and ssh://host",
      "max_tokens: 4096",
      "sk-learn is a library",
    ];
    for (const text of harmless) expect(redactor.text(text)).toBe(text);
    expect(redactor.report.counts).toEqual({ bearer: 1, openai: 1 });
  });

  it("a caller's patterns, with an optional secret group; bad patterns are refused clearly", () => {
    const redactor = new Redactor({ patterns: ["internal-[A-Z]+-\\d+", /user=(?<secret>\w+)/] });
    expect(redactor.text("ticket internal-ABC-42 by user=alice")).toBe(
      "ticket [REDACTED:pattern] by user=[REDACTED:pattern]",
    );
    expect(redactor.report.counts).toEqual({ pattern: 2 });
    expect(() => compilePattern("(")).toThrow(/redaction pattern "\(": /);
    expect(() => compilePattern("a?")).toThrow(/matches the empty string/);
    expect(compilePattern(/x/i).flags).toBe("dgi");
  });

  it("JSON values: strings redacted, signatures dropped, ids kept, unchanged parts shared", () => {
    const redactor = new Redactor();
    const untouched = { type: "text", text: "nothing to see" };
    const value = {
      id: "sk-ant-api03-looks-like-a-key-0123456789",
      content: [
        untouched,
        { type: "thinking", thinking: "x", thinkingSignature: "blob" },
        { type: "toolCall", thoughtSignature: "b" },
      ],
      note: "key AKIAIOSFODNN7EXAMPLE",
    };
    const out = redactor.value(value);
    expect(out).toEqual({
      id: "sk-ant-api03-looks-like-a-key-0123456789",
      content: [untouched, { type: "thinking", thinking: "x" }, { type: "toolCall" }],
      note: "key [REDACTED:aws]",
    });
    expect(out.content[0]).toBe(untouched);
    expect(Object.keys(out)).toEqual(["id", "content", "note"]);
    expect(redactor.report).toEqual({ counts: { aws: 1, signature: 2 }, total: 3 });
    expect(new Redactor({ keepSignatures: true }).value(value).content[1]).toHaveProperty(
      "thinkingSignature",
    );
  });
});

describe("redactSession", () => {
  it("redacts header and entries, keeps the tree, and reports; an unchanged session keeps its index", () => {
    const { header, entries } = everyKindSession();
    const planted = entries.map((e) =>
      e.id === "e0000003"
        ? {
            ...e,
            message: { role: "user", content: "use ghp_abcdefghijklmnopqrstuvwxyz0123456789", timestamp: 1 },
          }
        : e,
    );
    const session = createRenderSession({
      // A header field pi does not know is kept, and redacted like any other.
      header: { ...header, token: "xoxb-1234567890-abcdefghij" } as typeof header,
      entries: planted as never,
    });
    const { session: out, report } = redactSession(session);
    expect(report.counts).toEqual({ github: 1, signature: 1, slack: 1 });
    expect(JSON.stringify(out.entries)).not.toContain("ghp_");
    expect((out.header as { token?: string } | null)?.token).toBe("[REDACTED:slack]");
    expect(out.index.activePath().map((e) => e.id)).toEqual(session.index.activePath().map((e) => e.id));
    const clean = createRenderSession({ header, entries: entries.filter((e) => e.id !== "e0000004") });
    const again = redactSession(clean);
    expect(again.report.total).toBe(0);
    expect(again.session.index).toBe(clean.index);
  });
});
