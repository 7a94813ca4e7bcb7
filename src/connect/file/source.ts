/**
 * FileStreamSourceConnector (Kafka's `org.apache.kafka.connect.file.FileStreamSourceConnector`):
 * one task reads lines of `file` and sends each as a string value to `topic`.
 * Its source partition is `{ filename }` and its offset `{ position }`, the
 * byte position after the last line sent, so a restarted task resumes after
 * the last committed line (at-least-once: lines sent after the last offset
 * flush are sent again).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigDef, ConfigException, ParsedConfig, Validators } from '../config-def.js';
import { Schemas } from '../data/schema.js';
import { sourceRecord, type SourceConnector, type SourceRecord, type SourceTask, type SourceTaskClass, type SourceTaskContext } from '../spi.js';

export const FILE_CONNECTOR_VERSION = '1.0.0';
const READ_CHUNK_BYTES = 64 * 1024;
/** How long poll waits at the end of the file before returning nothing. */
const EOF_WAIT_MS = 100;

const SOURCE_DEF = new ConfigDef()
  .define({ name: 'file', type: 'STRING', defaultValue: null, importance: 'HIGH', documentation: 'Source filename. If not specified, the standard input will be used' })
  .define({
    name: 'topic',
    type: 'LIST',
    importance: 'HIGH',
    documentation: 'The topic to publish data to',
    validator: (name, value) => {
      if (!Array.isArray(value) || value.length !== 1 || value[0] === '') throw new ConfigException(`Invalid value ${String(value)} for configuration ${name}: '${name}' in FileStreamSourceConnector configuration requires definition of a single topic`);
    },
  })
  .define({ name: 'batch.size', type: 'INT', defaultValue: 2000, importance: 'LOW', documentation: 'The maximum number of records the source task can read from the file each time it is polled', validator: Validators.atLeast(1) });

export class FileStreamSourceConnector implements SourceConnector {
  readonly type = 'source';
  private props: Record<string, string> = {};

  version(): string {
    return FILE_CONNECTOR_VERSION;
  }

  config(): ConfigDef {
    return SOURCE_DEF;
  }

  start(props: Readonly<Record<string, string>>): void {
    ParsedConfig.of(SOURCE_DEF, props);
    this.props = { ...props };
  }

  taskClass(): SourceTaskClass {
    return FileStreamSourceTask;
  }

  /** One task only: a file has one reader. */
  taskConfigs(): Record<string, string>[] {
    return [{ ...this.props }];
  }

  stop(): void {}
}

export class FileStreamSourceTask implements SourceTask {
  private file: FileHandle | null = null;
  private filename = '';
  private topic = '';
  private batchSize = 2000;
  private position = 0;
  private pending = Buffer.alloc(0);
  private stopped = false;

  version(): string {
    return FILE_CONNECTOR_VERSION;
  }

  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const c = ParsedConfig.of(SOURCE_DEF, props);
    const filename = c.stringOrNull('file');
    if (filename === null || filename === '') throw new ConfigException('FileStreamSourceTask reads files only: set file (standard input is not supported)');
    this.filename = filename;
    this.topic = c.list('topic')[0] ?? '';
    this.batchSize = c.number('batch.size');
    const offset = context.offsetStorageReader.offset({ filename });
    const position = offset?.position;
    this.position = typeof position === 'number' && position >= 0 ? position : 0;
    this.file = await open(filename, 'r');
  }

  async poll(): Promise<SourceRecord[] | null> {
    if (this.file === null || this.stopped) return null;
    const records = this.takeLines();
    if (records.length >= this.batchSize) return records;
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    const { bytesRead } = await this.file.read(chunk, 0, READ_CHUNK_BYTES, this.position + this.pending.length);
    if (bytesRead > 0) {
      this.pending = Buffer.concat([this.pending, chunk.subarray(0, bytesRead)]);
      records.push(...this.takeLines(this.batchSize - records.length));
    }
    if (records.length === 0) {
      await sleep(EOF_WAIT_MS);
      return null;
    }
    return records;
  }

  /** Complete lines from the buffered bytes (a last line without newline waits for more). */
  private takeLines(max = this.batchSize): SourceRecord[] {
    const out: SourceRecord[] = [];
    while (out.length < max) {
      const nl = this.pending.indexOf(0x0a);
      if (nl < 0) break;
      const end = nl > 0 && this.pending[nl - 1] === 0x0d ? nl - 1 : nl;
      const line = this.pending.toString('utf8', 0, end);
      this.position += nl + 1;
      this.pending = this.pending.subarray(nl + 1);
      out.push(
        sourceRecord({
          topic: this.topic,
          sourcePartition: { filename: this.filename },
          sourceOffset: { position: this.position },
          valueSchema: Schemas.string(),
          value: line,
        }),
      );
    }
    return out;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const f = this.file;
    this.file = null;
    await f?.close();
  }
}
