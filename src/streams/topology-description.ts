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

/** What `Topology.describe()` returns; `toString()` prints it as Kafka does. */
export interface TopologyDescription {
  subtopologies: SubtopologyDescription[];
  toString(): string;
}

export function describeTopology(
  subtopologies: Subtopology[],
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
  return { subtopologies: described, toString: () => format(described, lookup) };
}

function format(subtopologies: SubtopologyDescription[], lookup: (name: string) => TopologyNode | undefined): string {
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
  return `${lines.join('\n')}\n`;
}
