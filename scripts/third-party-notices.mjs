// The third-party notices of a bundle (the CLI's, the pi package's): for each package esbuild
// inlined (from the builds' metafile inputs), its license text, from its license file or, for a
// package that keeps it in its README (pg-types), from the README's "License" section. The
// build fails for a bundled package that ships no license text at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The root of the package an input file belongs to (inputs are relative to `root`), or undefined for our own sources. */
function packageRoot(root, input) {
  const parts = input.split(/[\\/]/);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return undefined;
  const length = parts[at + 1]?.startsWith("@") ? 2 : 1;
  return join(root, ...parts.slice(0, at + 1 + length));
}

/** The directory of the package.json nearest above `file` (one of our own sources or builds). */
function ownPackageRoot(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, "package.json"))) return dir;
  return undefined;
}

/**
 * The license text a package without a license file keeps in its README (pg-types: a
 * "## License" section with the MIT text), or undefined.
 */
function readmeLicense(dir) {
  const readme = readdirSync(dir).find((name) => /^readme(\.md)?$/i.test(name));
  if (!readme) return undefined;
  const m = /^#+\s*licen[cs]e\s*$([\s\S]*?)(?=^#+\s|(?![\s\S]))/im.exec(
    readFileSync(join(dir, readme), "utf8"),
  );
  const text = m?.[1]?.trim();
  return text && /permission is hereby granted|licensed under/i.test(text) ? text : undefined;
}

/**
 * THIRD_PARTY_NOTICES.md for the bundle of package `name` built in `root` from `metafile`
 * (esbuild's, or several merged): our own `@pi-session` packages are left out.
 */
export function thirdPartyNotices(metafile, { root, name, noticesByHand = {} }) {
  const roots = new Set();
  const ours = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const dir = packageRoot(root, input);
    if (dir) roots.add(dir);
    else ours.add(ownPackageRoot(join(root, input)));
  }
  const sections = [];
  // Our own packages that inline code of others (render's reading libraries) ship its notices.
  for (const dir of ours) {
    const notices = dir === undefined ? undefined : join(dir, "dist", "THIRD_PARTY_NOTICES.md");
    if (notices && existsSync(notices))
      for (const section of readFileSync(notices, "utf8")
        .split(/^(?=## )/m)
        .slice(1))
        sections.push(`${section.trimEnd()}\n`);
  }
  for (const dir of roots) {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    if (manifest.name.startsWith("@pi-session/")) continue;
    const file = readdirSync(dir).find((entry) => /^(licen[cs]e|copying)([.-]|$)/i.test(entry));
    const text =
      file && existsSync(join(dir, file))
        ? readFileSync(join(dir, file), "utf8").trim()
        : (readmeLicense(dir) ?? noticesByHand[manifest.name]);
    if (text === undefined) {
      throw new Error(
        `${manifest.name} is bundled but ships no license file: add its notice by hand (noticesByHand)`,
      );
    }
    sections.push(
      `## ${manifest.name}@${manifest.version} (${manifest.license})\n\n\`\`\`text\n${text}\n\`\`\`\n`,
    );
  }
  const unique = [...new Set(sections)].sort();
  return `# Third-party notices\n\n${name} contains code from the packages below, under their licenses.\n\n${unique.join("\n")}`;
}
