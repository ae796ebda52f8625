/**
 * "Did you mean": the known name closest to a mistyped command or option (`shwo` -> `show`,
 * `--al-branches` -> `--all-branches`), by edit distance with swapped neighbours counting as
 * one edit. Use it for the hint of an unknown-name usage error.
 */

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The name of `known` closest to `typed` (case aside), when it is close enough to be a typo:
 * at most one edit for a word of up to four characters, two for longer ones, and a name that
 * starts with what was typed (`sta` -> `stats`). Undefined when none is, or two tie.
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  const core = word.replace(/^-+/, "");
  if (core.length === 0) return undefined;
  const limit = core.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tie = false;
  for (const name of known) {
    const candidate = name.toLowerCase();
    const prefix = core.length >= 2 && candidate.replace(/^-+/, "").startsWith(core);
    const distance = prefix ? 0.5 : editDistance(word, candidate);
    if (distance > limit) continue;
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance && name !== best) tie = true;
  }
  return tie ? undefined : best;
}

/** `did you mean "show"?` for a typo of one of `known`, else undefined. */
export function suggestionHint(typed: string, known: readonly string[]): string | undefined {
  const name = closestName(typed, known);
  return name === undefined ? undefined : `did you mean "${name}"?`;
}
