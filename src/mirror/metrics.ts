/**
 * Mirror metrics (Prometheus, prom-client), per flow `source->target`:
 * records and bytes replicated, replication latency (ack time minus the
 * source record's timestamp, MirrorMaker's replication-latency-ms), offset
 * syncs emitted, checkpoints emitted and the checkpoint lag (downstream end
 * minus the translated group offset). One registry per process:
 * `mirrorMetrics.registry`, served by dedicated mode (docs/mirror.md).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

class MirrorMetrics {
  readonly registry = new Registry();
  private readonly flow = ['flow'] as const;
  readonly records = new Counter({ name: 'mirror_records_replicated_total', help: 'Records replicated and acknowledged by the target', labelNames: this.flow, registers: [this.registry] });
  readonly bytes = new Counter({ name: 'mirror_bytes_replicated_total', help: 'Key, value and header bytes replicated', labelNames: this.flow, registers: [this.registry] });
  readonly latency = new Histogram({
    name: 'mirror_replication_latency_seconds',
    help: 'Target acknowledgement time minus the source record timestamp',
    labelNames: this.flow,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly offsetSyncs = new Counter({ name: 'mirror_offset_syncs_total', help: 'Offset syncs emitted', labelNames: this.flow, registers: [this.registry] });
  readonly checkpoints = new Counter({ name: 'mirror_checkpoints_total', help: 'Checkpoints emitted', labelNames: this.flow, registers: [this.registry] });
  readonly checkpointLag = new Gauge({ name: 'mirror_checkpoint_lag_records', help: 'Records between a translated group offset and the end of the remote partition (max over partitions)', labelNames: ['flow', 'group'], registers: [this.registry] });
  readonly offsetSyncLag = new Gauge({ name: 'mirror_offset_sync_lag_records', help: 'Records replicated since the last offset sync (max over partitions)', labelNames: this.flow, registers: [this.registry] });
}

export const mirrorMetrics = new MirrorMetrics();

export function flowLabel(source: string, target: string): { flow: string } {
  return { flow: `${source}->${target}` };
}
