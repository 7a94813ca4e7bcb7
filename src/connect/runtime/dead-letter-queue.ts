/**
 * The dead letter queue of a sink connector (KIP-298): a record skipped
 * under errors.tolerance=all is sent, with its original key, value and
 * headers, to errors.deadletterqueue.topic.name; with
 * errors.deadletterqueue.context.headers.enable it also carries Kafka's
 * `__connect.errors.*` headers (topic, partition, offset, connector, task,
 * stage, exception class, message and stack trace).
 */
import type { ConsumerRecord, Producer } from '../../client/index.js';

/** What the DLQ needs of a failed record: a consumed record, or one a sink task reported rebuilt with the converters. */
export type DlqRecord = Pick<ConsumerRecord<Buffer | null, Buffer | null>, 'topic' | 'partition' | 'offset' | 'key' | 'value' | 'headers' | 'timestamp'>;
import type { ErrorContext } from './error-handling.js';

export interface DlqConfig {
  topic: string;
  contextHeaders: boolean;
}

export function dlqConfig(props: Readonly<Record<string, string>>): DlqConfig | null {
  const topic = (props['errors.deadletterqueue.topic.name'] ?? '').trim();
  if (topic === '') return null;
  return { topic, contextHeaders: (props['errors.deadletterqueue.context.headers.enable'] ?? 'false').trim().toLowerCase() === 'true' };
}

export const ERROR_HEADER_PREFIX = '__connect.errors.';

export class DeadLetterQueue {
  constructor(
    private readonly config: DlqConfig,
    private readonly producer: Producer<Buffer | null, Buffer | null>,
    private readonly connector: string,
    private readonly taskId: number,
  ) {}

  get topic(): string {
    return this.config.topic;
  }

  async report(record: DlqRecord, context: ErrorContext): Promise<void> {
    const headers = record.headers.map((h) => ({ key: h.key, value: h.value }));
    if (this.config.contextHeaders) {
      const e = context.error;
      const add = (name: string, value: string): void => {
        headers.push({ key: ERROR_HEADER_PREFIX + name, value: Buffer.from(value) });
      };
      add('topic', record.topic);
      add('partition', String(record.partition));
      add('offset', String(record.offset));
      add('connector.name', this.connector);
      add('task.id', String(this.taskId));
      add('stage', context.stage);
      add('class.name', context.stage);
      add('exception.class.name', e.name);
      add('exception.message', e.message);
      add('exception.stacktrace', e.stack ?? e.message);
    }
    await this.producer.send({ topic: this.config.topic, key: record.key, value: record.value, headers, timestamp: record.timestamp });
  }
}
