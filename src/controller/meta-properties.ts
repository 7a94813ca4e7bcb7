/**
 * `<data.dir>/meta.properties`: who owns a data directory. Kafka's KRaft
 * format (version 1):
 *
 *   #
 *   # written by Tributary; do not edit
 *   cluster.id=<22-character base64url uuid>
 *   directory.id=<22-character base64url uuid>
 *   node.id=<int>
 *   version=1
 *
 * Created on the first start (the cluster id given by the operator or drawn
 * from the injected Random), then checked on every start: a directory that
 * belongs to another node or cluster is refused with a message that says
 * what to change, because serving it would mix two nodes' data.
 */
import { join } from 'node:path';
import type { FileSystem } from '../storage/index.js';
import { parseProperties, escapeProperty } from '../config/properties.js';
import type { Random } from '../util/random.js';
import { METADATA_DIR_NAME } from './metadata-log.js';
import { isUuidString, randomUuid } from './uuid.js';

export const META_PROPERTIES_FILE = 'meta.properties';
export const META_PROPERTIES_VERSION = 1;

export interface MetaProperties {
  readonly version: 1;
  readonly clusterId: string;
  readonly nodeId: number;
  readonly directoryId: string;
}

export type MetaPropertiesErrorCode =
  | 'ERR_TRIB_META_PROPERTIES_INVALID'
  | 'ERR_TRIB_META_PROPERTIES_MISSING'
  | 'ERR_TRIB_META_PROPERTIES_NODE_ID_MISMATCH'
  | 'ERR_TRIB_META_PROPERTIES_CLUSTER_ID_MISMATCH';

export class MetaPropertiesError extends Error {
  constructor(
    readonly code: MetaPropertiesErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MetaPropertiesError';
  }
}

export function formatMetaProperties(p: MetaProperties): string {
  const lines = ['#', '# written by Tributary; do not edit'];
  const entries: [string, string][] = [
    ['cluster.id', p.clusterId],
    ['directory.id', p.directoryId],
    ['node.id', String(p.nodeId)],
    ['version', String(p.version)],
  ];
  for (const [k, v] of entries) lines.push(`${escapeProperty(k, true)}=${escapeProperty(v, false)}`);
  return `${lines.join('\n')}\n`;
}

/** Parses meta.properties text; `path` names the file in errors. */
export function parseMetaProperties(text: string, path: string): MetaProperties {
  const parsed = parseProperties(text, path);
  const invalid = (why: string): MetaPropertiesError =>
    new MetaPropertiesError('ERR_TRIB_META_PROPERTIES_INVALID', `${path}: ${why}. Fix or remove the file only if this directory holds no data you need.`);
  if (parsed.problems.length > 0) throw invalid(parsed.problems.map((p) => p.message).join('; '));
  const values = new Map(parsed.entries.map((e) => [e.key, e.value.trim()]));
  const version = values.get('version');
  if (version !== String(META_PROPERTIES_VERSION)) {
    throw invalid(`version=${version ?? '(missing)'} is not supported (only version=1, the KRaft format)`);
  }
  const clusterId = values.get('cluster.id');
  if (clusterId === undefined || !isUuidString(clusterId)) throw invalid(`cluster.id=${clusterId ?? '(missing)'} is not a 22-character base64url uuid`);
  const nodeIdText = values.get('node.id');
  const nodeId = Number(nodeIdText);
  if (nodeIdText === undefined || !/^\d+$/.test(nodeIdText) || !Number.isSafeInteger(nodeId) || nodeId > 0x7fffffff) {
    throw invalid(`node.id=${nodeIdText ?? '(missing)'} is not a non-negative int`);
  }
  const directoryId = values.get('directory.id');
  if (directoryId === undefined || !isUuidString(directoryId)) throw invalid(`directory.id=${directoryId ?? '(missing)'} is not a 22-character base64url uuid`);
  return { version: 1, clusterId, nodeId, directoryId };
}

/** Reads `<dataDir>/meta.properties`, or null when there is none. */
export function readMetaProperties(fs: FileSystem, dataDir: string): MetaProperties | null {
  const path = join(dataDir, META_PROPERTIES_FILE);
  if (!fs.exists(path)) return null;
  return parseMetaProperties(fs.readFile(path).toString('utf8'), path);
}

export interface EnsureMetaPropertiesOptions {
  fs: FileSystem;
  dataDir: string;
  /** node.id from the broker config. */
  nodeId: number;
  /** For the first start; drawn from `random` when absent. Checked against the file on later starts. */
  clusterId?: string | undefined;
  random: Random;
}

/** Creates meta.properties on the first start; verifies it on later ones. */
export function ensureMetaProperties(opts: EnsureMetaPropertiesOptions): { properties: MetaProperties; created: boolean } {
  const { fs, dataDir, nodeId } = opts;
  const path = join(dataDir, META_PROPERTIES_FILE);
  if (opts.clusterId !== undefined && !isUuidString(opts.clusterId)) {
    throw new MetaPropertiesError('ERR_TRIB_META_PROPERTIES_INVALID', `cluster id '${opts.clusterId}' is not a 22-character base64url uuid (generate one with \`tributary random-uuid\`)`);
  }
  const existing = readMetaProperties(fs, dataDir);
  if (existing !== null) {
    if (existing.nodeId !== nodeId) {
      throw new MetaPropertiesError(
        'ERR_TRIB_META_PROPERTIES_NODE_ID_MISMATCH',
        `The data directory ${dataDir} belongs to node ${existing.nodeId} (${path} has node.id=${existing.nodeId}), ` +
          `but this node is configured with node.id=${nodeId}. Point log.dirs at node ${nodeId}'s own directory, ` +
          `or set node.id=${existing.nodeId} if this directory really is this node's.`,
      );
    }
    if (opts.clusterId !== undefined && existing.clusterId !== opts.clusterId) {
      throw new MetaPropertiesError(
        'ERR_TRIB_META_PROPERTIES_CLUSTER_ID_MISMATCH',
        `The data directory ${dataDir} belongs to cluster ${existing.clusterId} (${path}), but this node was started ` +
          `for cluster ${opts.clusterId}. Use a fresh data directory for the new cluster, or drop the cluster id option to keep the existing cluster.`,
      );
    }
    return { properties: existing, created: false };
  }
  if (fs.exists(join(dataDir, METADATA_DIR_NAME))) {
    throw new MetaPropertiesError(
      'ERR_TRIB_META_PROPERTIES_MISSING',
      `${path} is missing but ${join(dataDir, METADATA_DIR_NAME)} exists: this directory was used before and lost its identity file. ` +
        'Restore meta.properties from a backup; a new cluster id would not match the existing metadata.',
    );
  }
  const properties: MetaProperties = {
    version: 1,
    clusterId: opts.clusterId ?? randomUuid(opts.random),
    nodeId,
    directoryId: randomUuid(opts.random),
  };
  fs.mkdirp(dataDir);
  fs.writeFileAtomic(path, Buffer.from(formatMetaProperties(properties), 'utf8'));
  return { properties, created: true };
}
