/**
 * Randomness as an injected dependency, so seeded tests replay exactly.
 * The seeded generator is mulberry32: tiny, fast and good enough for schedules.
 */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
}

export class SeededRandom implements Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }
}

export const systemRandom: Random = {
  next: () => Math.random(),
  int: (maxExclusive: number) => Math.floor(Math.random() * maxExclusive),
};
