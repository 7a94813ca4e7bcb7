/** The mirror module's public surface (see README.md). */
export { DefaultReplicationPolicy, IdentityReplicationPolicy, isCycle, policyFromConfig, type ReplicationPolicy } from './policy.js';
export { MirrorSourceConnector } from './source-connector.js';
export { MirrorCheckpointConnector } from './checkpoint-connector.js';
export { MirrorHeartbeatConnector } from './heartbeat-connector.js';
export { decodeCheckpoint, decodeHeartbeat, decodeOffsetSync, encodeCheckpoint, encodeHeartbeat, encodeOffsetSync, MirrorFormatError } from './records.js';
export type { Checkpoint, Heartbeat, OffsetSync } from './records.js';
export { MirrorConfigError, parseMm2Config, type Flow, type Mm2Config } from './mm2-config.js';
export { startMirror, MIRROR_PLUGIN_PATH, type MirrorHandle } from './dedicated.js';
export { translateOffsets, applyTranslatedOffsets, readCheckpoints, type TranslateOffsetsOptions } from './translate.js';
export { mirrorStatus, type FlowStatus } from './status.js';
export { mirrorMetrics } from './metrics.js';
export { promoteMirrorTopic, MirrorPromoteError, type PromoteResult } from './promote.js';
export { ExactMirrorError } from './exact-copier.js';
