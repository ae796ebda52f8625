/**
 * A vitest reporter that says, once at the end of a run, which tests were left out because
 * pi's real session files are not there (see `upstream.ts`), and how to bring them in.
 * The root vitest.config.ts adds it beside the default reporter.
 */
import type { Reporter, TestModule } from "vitest/node";
import { missingUpstreamFixtures, upstreamFixtureDir, upstreamSkipNote } from "./upstream.js";

export class LeftOutReporter implements Reporter {
  constructor(private readonly write: (text: string) => void = (t) => process.stdout.write(t)) {}

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    // Only skips for a fixture missing from where this run looks (a test of the helper itself
    // skips one on purpose, with another directory).
    const missing = missingUpstreamFixtures();
    const notes = new Set(missing.map(upstreamSkipNote));
    const left: string[] = [];
    for (const mod of modules) {
      for (const test of mod.children.allTests("skipped")) {
        const result = test.result();
        if (result.state !== "skipped" || result.note === undefined || !notes.has(result.note)) continue;
        left.push(`  ${test.project.name}  ${mod.relativeModuleId} > ${test.fullName}`);
      }
    }
    if (left.length === 0) return;
    this.write(
      `\nLeft out ${left.length} test${left.length === 1 ? "" : "s"} that read pi's real sessions` +
        ` (${missing.map((n) => `${n}.jsonl`).join(", ")} not found in ${upstreamFixtureDir()};` +
        " put them there or point PI_SESSION_UPSTREAM_FIXTURES at them):\n" +
        `${left.join("\n")}\n`,
    );
  }
}
