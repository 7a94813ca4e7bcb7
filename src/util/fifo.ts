/**
 * A FIFO queue with O(1) shift (Array#shift is O(n) on large arrays); the
 * producer keeps its blocked sends in one.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined as T;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes and returns the items matching `predicate`, keeping the others in order. */
  removeWhere(predicate: (item: T) => boolean): T[] {
    const live = this.items.slice(this.head);
    this.items = live.filter((x) => !predicate(x));
    this.head = 0;
    return live.filter(predicate);
  }
}
