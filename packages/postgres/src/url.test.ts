/**
 * URLs as they may be shown: the password is gone from `redactUrl`'s answer for URLs that
 * parse and for those that do not (the shapes pg refuses: a port out of range, a missing `]`,
 * a raw `/` in the password, several hosts), `urlSecrets` finds it in every spelling, and
 * `postgresUrlProblem` refuses what pg cannot read and accepts what it can.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PostgresUrlError, postgresUrlProblem, redactUrl, urlSecrets } from "./url.js";

const PASSWORD = "S3cret-Pw";

describe("redactUrl", () => {
  it.each([
    [`postgresql://ada:${PASSWORD}@db.internal/pi`, "postgresql://ada@db.internal/pi"],
    [`postgresql://ada:${PASSWORD}@127.0.0.1:99999/pi`, "postgresql://ada@127.0.0.1:99999/pi"],
    [`postgresql://ada:${PASSWORD}@[::1/pi`, "postgresql://ada@[::1/pi"],
    [`postgresql://ada:${PASSWORD}/x@db/pi`, "postgresql://ada@db/pi"],
    [`postgresql://ada:${PASSWORD}@h1:5432,h2:5433/pi`, "postgresql://ada@h1:5432,h2:5433/pi"],
    [`postgresql://ada@[::1/pi?password=${PASSWORD}&x=1`, "postgresql://ada@[::1/pi?password=***&x=1"],
    [`postgresql://db/pi?sslpassword=${PASSWORD}`, "postgresql://db/pi?sslpassword=***"],
    [`postgresql://db/pi?pass%77ord=${PASSWORD}`, "postgresql://db/pi?password=***"],
    [`host=db password='${PASSWORD} x' port=5432`, "host=db password=*** port=5432"],
    ["postgresql://ada@db/pi", "postgresql://ada@db/pi"],
  ])("%s -> %s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

describe("urlSecrets", () => {
  it("finds the password as typed, encoded and decoded", () => {
    expect(urlSecrets("postgresql://ada:p%40ss w@db/pi")).toEqual(
      expect.arrayContaining(["p%40ss w", "p@ss w", "p%40ss%20w"]),
    );
    expect(urlSecrets(`postgresql://ada:${PASSWORD}/x@[::1/pi`)).toContain(`${PASSWORD}/x`);
    expect(urlSecrets(`postgresql://db/pi?password=${PASSWORD}`)).toEqual([PASSWORD]);
    expect(urlSecrets("postgresql://ada@db/pi")).toEqual([]);
  });
});

describe("postgresUrlProblem", () => {
  it.each([
    ["postgresql://ada@127.0.0.1:99999/pi", "port 99999 is over 65535"],
    ["postgresql://ada@127.0.0.1:5x/pi", "the port is not a number"],
    ["postgresql://ada@[::1/pi", "the host's [ has no ]"],
    ["postgresql://h1:5432,h2:5433/pi", "several hosts in one URL are not supported"],
    [
      "postgresql://ada:a/b@db/pi",
      "it does not parse as a URL; percent-encode @ : / ? # in the user name or password",
    ],
    ["db.internal/pi", "it does not start with postgresql://"],
    ["host=db password=x", "it does not start with postgresql://"],
  ])("%s: %s", (url, problem) => {
    expect(postgresUrlProblem(url)).toBe(problem);
    expect(new PostgresUrlError(problem, redactUrl(url)).message).toBe(
      `not a PostgreSQL URL (${problem}): ${redactUrl(url)}`,
    );
  });

  it.each([
    "postgresql://ada:pw@db.internal:5432/pi?sslmode=require",
    "postgres://ada@[::1]:5432/pi",
    "postgresql://ada:pw@/pi?host=/var/run/postgresql",
    "postgresql://ada:p w@db/pi",
    "postgresql://ada:p%ZZ@db/pi",
    "postgresql:///pi",
    "/var/run/postgresql pi",
    "socket:/var/run/postgresql?db=pi",
  ])("pg reads %s", (url) => {
    expect(postgresUrlProblem(url)).toBeUndefined();
  });
});

/** A password with the characters that break URLs, always holding a marker no other part has. */
const passwords = fc
  .array(fc.constantFrom(..."aZ9-_.~!$&'()*+,;=:@/?#[]% \\\"<>^`{|}é€"), { maxLength: 12 })
  .map((chars) => `Qq${chars.join("")}Qq`);
const hosts = fc.constantFrom("127.0.0.1", "db.internal", "[::1]", "[::1", "db:99999", "db:abc", "h1,h2", "");

describe("whatever the URL, the password is never in what is shown", () => {
  it("redactUrl hides it, and urlSecrets finds every spelling a message could quote", () => {
    fc.assert(
      fc.property(passwords, hosts, fc.constantFrom("postgresql", "postgres"), (password, host, scheme) => {
        for (const url of [
          `${scheme}://ada:${password}@${host}/pi`,
          `${scheme}://ada:${encodeURIComponent(password)}@${host}/pi`,
          `${scheme}://ada@${host}/pi?password=${encodeURIComponent(password)}`,
        ]) {
          const shown = redactUrl(url);
          expect(shown).not.toContain("Qq");
          // A message that quotes the URL, its password and the password decoded, masked by
          // the secrets alone.
          let message = `cannot connect to ${url} with ${password} (${decodeURIComponent(encodeURIComponent(password))})`;
          for (const secret of urlSecrets(url).sort((a, b) => b.length - a.length))
            message = message.split(secret).join("***");
          expect(message).not.toContain("Qq");
        }
      }),
    );
  });
});
