/**
 * `stream.split()`: routes each record to the first branch whose predicate
 * holds (Kafka Streams' `BranchedKStream`). Branches are named
 * `<prefix><name>`, or `<prefix><n>` with n counting from 1; the default
 * branch is `<prefix>0` unless named.
 */
import type { ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import { DslGraph, PASS_ON } from './graph.js';
import type { KStream, StreamState } from './kstream.js';

interface Branch<K, V> {
  predicate: (key: K, value: V) => boolean;
  name: string;
  chain: ((stream: KStream<K, V>) => KStream<K, V> | void) | undefined;
}

/** Options of a branch. */
export interface Branched<K, V> {
  /** The branch's name (appended to the split's prefix). */
  name?: string;
  /** Applied to the branch; what it returns is the branch in the result Map (none: left out). */
  chain?: (stream: KStream<K, V>) => KStream<K, V> | void;
}

/** A split stream collecting branches. */
export class BranchedKStream<K, V> {
  private readonly branches: Branch<K, V>[] = [];
  private done = false;

  /** @internal */
  constructor(
    private readonly parent: StreamState<K, V>,
    private readonly splitNode: string,
    private readonly prefix: string,
  ) {}

  /** Adds a branch taking the records `predicate` holds for that no earlier branch took. */
  branch(predicate: (key: K, value: V) => boolean, branched: Branched<K, V> = {}): this {
    this.branches.push({ predicate, name: this.prefix + (branched.name ?? String(this.branches.length + 1)), chain: branched.chain });
    return this;
  }

  /** Closes the split with a branch for the records no predicate took. */
  defaultBranch(branched: Branched<K, V> = {}): Map<string, KStream<K, V>> {
    this.branches.push({ predicate: () => true, name: this.prefix + (branched.name ?? '0'), chain: branched.chain });
    return this.finish();
  }

  /** Closes the split; records no predicate took are dropped. */
  noDefaultBranch(): Map<string, KStream<K, V>> {
    return this.finish();
  }

  private finish(): Map<string, KStream<K, V>> {
    if (this.done) throw new Error('this split is already closed');
    this.done = true;
    const g: DslGraph = this.parent.graph;
    const names = this.branches.map((b) => b.name);
    const predicates = this.branches.map((b) => b.predicate);
    // The split node routes to one child by name; replace its placeholder processor.
    const split = g.topology.node(this.splitNode);
    if (split?.kind === 'processor') split.supplier = router(predicates, names);
    const result = new Map<string, KStream<K, V>>();
    for (const b of this.branches) {
      g.stateless(b.name, PASS_ON, [this.splitNode]);
      const stream = g.make.stream<K, V>({ ...this.parent, node: b.name });
      const chained = b.chain === undefined ? stream : b.chain(stream);
      if (chained !== undefined) result.set(b.name, chained);
    }
    return result;
  }
}

function router<K, V>(predicates: ((key: K, value: V) => boolean)[], names: string[]): ProcessorSupplier {
  return () => {
    let context: ProcessorContext | null = null;
    return {
      init: (c) => void (context = c),
      process(record) {
        const i = predicates.findIndex((p) => p(record.key as K, record.value as V));
        if (i >= 0) (context as ProcessorContext).forward(record, names[i]);
      },
    };
  };
}
