/**
 * `topology.describe()`: the sub-topologies with their nodes, printed in the
 * layout of Kafka Streams' `TopologyDescription.toString()` so that people
 * (and tools that diff descriptions) read it the same way.
 */
import type { Subtopology, TopologyNode } from './topology.js';

/** A node as `describe()` reports it. */
export interface NodeDescription {
  name: string;
  kind: 'source' | 'processor' | 'sink';
  /** Source: the topics read. Sink: the topic written (empty with a topic extractor). */
  topics: string[];
  stores: string[];
  predecessors: string[];
  successors: string[];
}

/** A sub-topology as `describe()` reports it. */
export interface SubtopologyDescription {
  id: number;
  nodes: NodeDescription[];
}

/** A global store added with its own processor (`addGlobalStore`), as `describe()` reports it. */
export interface GlobalStoreDescription {
  /** Numbered after the sub-topologies (a global store generates no task, so task ids do not count it). */
  id: number;
  store: string;
  topic: string;
  sourceName: string;
  processorName: string;
}

/** What `Topology.describe()` returns; `toString()` prints it as Kafka does. */
export interface TopologyDescription {
  subtopologies: SubtopologyDescription[];
  globalStores: GlobalStoreDescription[];
  toString(): string;
}

export function describeTopology(
  subtopologies: Subtopology[],
  globals: Omit<GlobalStoreDescription, 'id'>[],
  children: (name: string) => TopologyNode[],
  lookup: (name: string) => TopologyNode | undefined,
): TopologyDescription {
  const described = subtopologies.map((s) => ({
    id: s.id,
    nodes: s.nodes.map((n): NodeDescription => ({
      name: n.name,
      kind: n.kind,
      topics: n.kind === 'source' ? n.topics : n.kind === 'sink' && typeof n.topic === 'string' ? [n.topic] : [],
      stores: n.kind === 'processor' ? [...n.stores] : [],
      predecessors: n.kind === 'source' ? [] : n.parents.filter((p) => lookup(p) !== undefined),
      successors: children(n.name).map((c) => c.name),
    })),
  }));
  const globalStores = globals.map((g, i) => ({ id: subtopologies.length + i, ...g }));
  return { subtopologies: described, globalStores, toString: () => format(described, globalStores, lookup) };
}

function format(subtopologies: SubtopologyDescription[], globalStores: GlobalStoreDescription[], lookup: (name: string) => TopologyNode | undefined): string {
  const lines = ['Topologies:'];
  subtopologies.forEach((s, i) => {
    lines.push(`${i === 0 ? '   ' : '  '}Sub-topology: ${s.id}`);
    for (const n of s.nodes) {
      const node = lookup(n.name);
      if (n.kind === 'source') lines.push(`    Source: ${n.name} (topics: [${n.topics.join(', ')}])`);
      else if (n.kind === 'processor') lines.push(`    Processor: ${n.name} (stores: [${n.stores.join(', ')}])`);
      else if (node?.kind === 'sink' && typeof node.topic !== 'string') lines.push(`    Sink: ${n.name} (extractor class: ${node.topic.name || 'anonymous'})`);
      else lines.push(`    Sink: ${n.name} (topic: ${n.topics[0] ?? ''})`);
      if (n.kind !== 'sink') lines.push(`      --> ${n.successors.length === 0 ? 'none' : n.successors.join(', ')}`);
      if (n.kind !== 'source') lines.push(`      <-- ${n.predecessors.join(', ')}`);
    }
    lines.push('');
  });
  for (const g of globalStores) {
    lines.push(`${lines.length === 1 ? '   ' : '  '}Sub-topology: ${g.id} for global store (will not generate tasks)`);
    lines.push(`    Source: ${g.sourceName} (topics: [${g.topic}])`, `      --> ${g.processorName}`);
    lines.push(`    Processor: ${g.processorName} (stores: [${g.store}])`, '      --> none', `      <-- ${g.sourceName}`, '');
  }
  return `${lines.join('\n')}\n`;
}
