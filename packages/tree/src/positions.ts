/**
 * EntryPositions: where each indexed entry came from, by slot (its place in the index's entry
 * array): the line and byte offset in its file, when the caller gave them, and its index in
 * the input, where items that were not indexed count too. Diagnostics read these; building the
 * index writes them once per entry, so they are kept as numbers in typed arrays, not an object
 * per entry.
 */
import type { TreeDiagnostic } from "./analysis.js";

/** Where an entry sits in its file (from the line codec's records). */
export interface EntryPosition {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
}

/** The line stored for an entry without a position. */
const NO_LINE = -1;
/** Numbers stored per slot: the line, then the byte offset. */
const PER_SLOT = 2;
const FIRST_CAPACITY = 32;

/** The fields of a diagnostic that say where its entry is. */
export type DiagnosticPlace = Pick<TreeDiagnostic, "inputIndex" | "line" | "offset">;

export class EntryPositions {
  /** Per slot: the line at `PER_SLOT * slot` (NO_LINE: none given), then the byte offset; grown by doubling. */
  #lineAndOffset = new Float64Array(0);
  /** Input index per slot; undefined while every input item was indexed (input index = slot). */
  #inputIndexOf: number[] | undefined = undefined;
  #slots = 0;
  #inputs = 0;

  /** Room for `slots` entries, so that a bulk build does not regrow. */
  reserve(slots: number): void {
    if (PER_SLOT * slots > this.#lineAndOffset.length) this.#grow(slots);
  }

  /** The entry in the next slot, at `position` if given; returns the slot. */
  add(position: EntryPosition | undefined): number {
    const slot = this.#slots++;
    const inputIndex = this.#inputs++;
    const at = PER_SLOT * slot;
    if (at + PER_SLOT > this.#lineAndOffset.length) this.#grow(Math.max(FIRST_CAPACITY, 2 * (slot + 1)));
    if (position === undefined) {
      this.#lineAndOffset[at] = NO_LINE;
      this.#lineAndOffset[at + 1] = 0;
    } else {
      this.#lineAndOffset[at] = position.line;
      this.#lineAndOffset[at + 1] = position.offset;
    }
    if (this.#inputIndexOf !== undefined) this.#inputIndexOf.push(inputIndex);
    return slot;
  }

  /** An input item that is not indexed; returns its input index. From now on input indexes differ from slots. */
  skip(): number {
    if (this.#inputIndexOf === undefined) {
      const identity: number[] = [];
      for (let slot = 0; slot < this.#slots; slot++) identity.push(slot);
      this.#inputIndexOf = identity;
    }
    return this.#inputs++;
  }

  /** The position given for the entry in `slot`, if any. */
  position(slot: number): EntryPosition | undefined {
    const line = this.#lineAndOffset[PER_SLOT * slot] as number;
    return line === NO_LINE
      ? undefined
      : { line, offset: this.#lineAndOffset[PER_SLOT * slot + 1] as number };
  }

  /** Where the entry in `slot` is, as the fields of a diagnostic (line and offset when known). */
  place(slot: number): DiagnosticPlace {
    const inputIndex = this.#inputIndexOf?.[slot] ?? slot;
    const position = this.position(slot);
    return position === undefined
      ? { inputIndex }
      : { inputIndex, line: position.line, offset: position.offset };
  }

  /** The entry in `slot` for a sentence: `line N`, or `entry #N` without a position. */
  describe(slot: number): string {
    const line = this.#lineAndOffset[PER_SLOT * slot] as number;
    return line === NO_LINE ? `entry #${slot + 1}` : `line ${line}`;
  }

  #grow(slots: number): void {
    const grown = new Float64Array(PER_SLOT * slots);
    grown.set(this.#lineAndOffset);
    this.#lineAndOffset = grown;
  }
}
