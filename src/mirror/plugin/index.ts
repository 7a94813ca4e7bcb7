/**
 * The mirror connectors as a Connect plugin module: a worker with this
 * folder (dist/src/mirror/plugin) in `plugin.path` knows
 * MirrorSourceConnector, MirrorCheckpointConnector and
 * MirrorHeartbeatConnector by Kafka's full class names and short names.
 * Dedicated mode (`tributary mirror`) adds it to its workers itself.
 */
import type { ConnectPluginManifest } from '../../connect/plugins.js';
import { MirrorCheckpointConnector } from '../checkpoint-connector.js';
import { MirrorHeartbeatConnector } from '../heartbeat-connector.js';
import { MirrorSourceConnector } from '../source-connector.js';

export const connectPlugins: ConnectPluginManifest = {
  connectors: {
    'org.apache.kafka.connect.mirror.MirrorSourceConnector': MirrorSourceConnector,
    'org.apache.kafka.connect.mirror.MirrorCheckpointConnector': MirrorCheckpointConnector,
    'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector': MirrorHeartbeatConnector,
  },
};
