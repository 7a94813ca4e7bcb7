/**
 * The worker's Prometheus metrics per connector and task (served at
 * GET /metrics on the REST listener): records polled and written by
 * source tasks, read and put by sink tasks, record errors, records sent to
 * the dead letter queue, offset commit latency, and task states.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export class ConnectMetrics {
  readonly registry = new Registry();
  private readonly labels = ['connector', 'task'] as const;
  readonly sourceRecordsPolled = new Counter({ name: 'connect_source_records_polled_total', help: 'Records returned by source task poll()', labelNames: this.labels, registers: [this.registry] });
  readonly sourceRecordsWritten = new Counter({ name: 'connect_source_records_written_total', help: 'Source records acknowledged by Kafka', labelNames: this.labels, registers: [this.registry] });
  readonly sinkRecordsRead = new Counter({ name: 'connect_sink_records_read_total', help: 'Records read from Kafka by sink tasks', labelNames: this.labels, registers: [this.registry] });
  readonly sinkRecordsPut = new Counter({ name: 'connect_sink_records_put_total', help: 'Records passed to sink task put()', labelNames: this.labels, registers: [this.registry] });
  readonly recordErrors = new Counter({ name: 'connect_task_record_errors_total', help: 'Records that failed in a converter, transform or the task', labelNames: this.labels, registers: [this.registry] });
  readonly recordsSkipped = new Counter({ name: 'connect_task_records_skipped_total', help: 'Records skipped under errors.tolerance=all', labelNames: this.labels, registers: [this.registry] });
  readonly dlqRecords = new Counter({ name: 'connect_deadletterqueue_records_total', help: 'Records written to the dead letter queue', labelNames: this.labels, registers: [this.registry] });
  readonly offsetCommitSeconds = new Histogram({
    name: 'connect_offset_commit_seconds',
    help: 'Time to commit a task\'s offsets',
    labelNames: this.labels,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });
  readonly taskRunning = new Gauge({ name: 'connect_task_running', help: '1 while the task is RUNNING', labelNames: this.labels, registers: [this.registry] });

  /** Label values of a task. */
  static task(connector: string, task: number): { connector: string; task: string } {
    return { connector, task: String(task) };
  }
}
