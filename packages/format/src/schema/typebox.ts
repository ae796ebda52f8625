/**
 * TypeBox, loaded for the schema modules: `Type` to build schemas, `Compile` for the compiled
 * validator. TypeBox is an optional peer dependency of this package: only the
 * `@pi-session/format/schema` entry loads it (through this module), so users of the root entry
 * never install it. Loading it with a top-level `await import` lets a missing `typebox` fail
 * with a message that says what to install. Import values from here, types from "typebox".
 */

async function loadTypeBox<Module>(name: string, load: () => Promise<Module>): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    throw new Error(
      `@pi-session/format/schema needs the package "typebox" (1.x), an optional peer dependency it does not install: npm install typebox@^1.4.3 (could not load "${name}")`,
      { cause: error },
    );
  }
}

const [typebox, typeboxCompile] = await Promise.all([
  loadTypeBox("typebox", () => import("typebox")),
  loadTypeBox("typebox/compile", () => import("typebox/compile")),
]);

/** TypeBox's schema builder. */
export const Type: typeof import("typebox").Type = typebox.Type;
/** TypeBox's validator compiler. */
export const Compile: typeof import("typebox/compile").Compile = typeboxCompile.Compile;
