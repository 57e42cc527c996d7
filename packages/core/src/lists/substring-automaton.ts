/** Counts the work a lookup does, so that tests can prove lookups do not scan lists. */
export interface ProbeCounter {
  /** Hash-table probes, automaton transitions and regular-expression tests made so far. */
  probes: number;
}

/**
 * An Aho-Corasick automaton: finds which of many substrings occur in a text in one pass over the text, whatever the
 * number of substrings. Each substring carries a value (the rule it came from).
 *
 * One RegExp of escaped alternatives (`a|b|c`) would be shorter to write, but V8's backtracking engine tries every
 * alternative at every position, so its cost grows with the number of entries; this automaton's does not, and it
 * names the entry that matched without a second search.
 *
 * @example
 * ```ts
 * const automaton = new SubstringAutomaton<string>();
 * automaton.add('evil', 'rule 1');
 * automaton.find('http://notevil.example/', () => true); // 'rule 1'
 * ```
 */
export class SubstringAutomaton<T> {
  // Node 0 is the root. Transitions are keyed by UTF-16 code unit, the unit `String#includes` compares by.
  readonly #next: Map<number, number>[] = [new Map()];
  readonly #fail: number[] = [0];
  readonly #own: T[][] = [[]];
  // The nearest node along the failure chain that ends a substring, so reporting skips nodes that end none.
  readonly #dictionary: number[] = [-1];
  #built = true;
  #size = 0;

  /** How many substrings were added. */
  get size(): number {
    return this.#size;
  }

  /** Adds `substring` (not empty) with its `value`; the automaton is rebuilt on the next {@link find}. */
  add(substring: string, value: T): void {
    if (substring === '') throw new RangeError('an empty substring would match every text');
    let node = 0;
    for (let i = 0; i < substring.length; i += 1) {
      const unit = substring.charCodeAt(i);
      let child = this.#next[node]?.get(unit);
      if (child === undefined) {
        child = this.#next.length;
        this.#next.push(new Map());
        this.#fail.push(0);
        this.#own.push([]);
        this.#dictionary.push(-1);
        this.#next[node]?.set(unit, child);
      }
      node = child;
    }
    this.#own[node]?.push(value);
    this.#size += 1;
    this.#built = false;
  }

  /**
   * The value of the first substring (by where it ends in `text`) that occurs in `text` and that `accept` takes,
   * or undefined. Each transition followed is counted in `counter`.
   */
  find(text: string, accept: (value: T) => boolean, counter?: ProbeCounter): T | undefined {
    if (this.#size === 0) return undefined;
    if (!this.#built) this.#build();
    let node = 0;
    let probes = 0;
    try {
      for (let i = 0; i < text.length; i += 1) {
        const unit = text.charCodeAt(i);
        let next = this.#next[node]?.get(unit);
        probes += 1;
        while (next === undefined && node !== 0) {
          node = this.#fail[node] ?? 0;
          next = this.#next[node]?.get(unit);
          probes += 1;
        }
        node = next ?? 0;
        for (let out = (this.#own[node]?.length ?? 0) > 0 ? node : (this.#dictionary[node] ?? -1); out !== -1; ) {
          for (const value of this.#own[out] ?? []) if (accept(value)) return value;
          out = this.#dictionary[out] ?? -1;
        }
      }
      return undefined;
    } finally {
      if (counter) counter.probes += probes;
    }
  }

  #build(): void {
    // Breadth-first, so that a node's failure target (a shorter suffix) is complete before the node is.
    const queue: number[] = [];
    for (const child of this.#next[0]?.values() ?? []) {
      this.#fail[child] = 0;
      this.#dictionary[child] = -1;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head += 1) {
      const node = queue[head] ?? 0;
      for (const [unit, child] of this.#next[node] ?? []) {
        let fallback = this.#fail[node] ?? 0;
        while (fallback !== 0 && !this.#next[fallback]?.has(unit)) fallback = this.#fail[fallback] ?? 0;
        const target = this.#next[fallback]?.get(unit);
        const failure = target === undefined || target === child ? 0 : target;
        this.#fail[child] = failure;
        this.#dictionary[child] = (this.#own[failure]?.length ?? 0) > 0 ? failure : (this.#dictionary[failure] ?? -1);
        queue.push(child);
      }
    }
    this.#built = true;
  }
}
