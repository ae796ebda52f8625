import { defineConfig } from "vitest/config";

// One root config; every workspace package is a project, plus `repo` for repository-wide
// rules (scripts/*.test.ts). Tests import other packages through their built `dist`
// (run `pnpm build` first; `npm run verify` does).
export default defineConfig({
  test: {
    projects: [
      "packages/*",
      "apps/*",
      "bench",
      { test: { name: "repo", include: ["scripts/**/*.test.ts"] } },
    ],
  },
});
