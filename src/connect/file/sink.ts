/**
 * FileStreamSinkConnector (Kafka's `org.apache.kafka.connect.file.FileStreamSinkConnector`):
 * tasks append each record's value, as text, one per line, to `file`
 * (standard output when unset). `flush` syncs the file, so the offsets the
 * worker commits after it cover only lines on disk.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { ConfigDef, ParsedConfig } from '../config-def.js';
import { Struct } from '../data/schema.js';
import type { SinkConnector, SinkRecord, SinkTask, SinkTaskClass } from '../spi.js';
import { FILE_CONNECTOR_VERSION } from './source.js';

const SINK_DEF = new ConfigDef().define({ name: 'file', type: 'STRING', defaultValue: null, importance: 'HIGH', documentation: 'Destination filename. If not specified, the standard output will be used' });

export class FileStreamSinkConnector implements SinkConnector {
  readonly type = 'sink';
  private props: Record<string, string> = {};

  version(): string {
    return FILE_CONNECTOR_VERSION;
  }

  config(): ConfigDef {
    return SINK_DEF;
  }

  start(props: Readonly<Record<string, string>>): void {
    ParsedConfig.of(SINK_DEF, props);
    this.props = { ...props };
  }

  taskClass(): SinkTaskClass {
    return FileStreamSinkTask;
  }

  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.props }));
  }

  stop(): void {}
}

/** The text of a value as Java's String.valueOf would print simple values. */
function lineOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Struct) return JSON.stringify(Object.fromEntries((value.schema.fields ?? []).map((f) => [f.name, value.get(f.name)])));
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export class FileStreamSinkTask implements SinkTask {
  private file: FileHandle | null = null;

  version(): string {
    return FILE_CONNECTOR_VERSION;
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const filename = ParsedConfig.of(SINK_DEF, props).stringOrNull('file');
    if (filename !== null && filename !== '') this.file = await open(filename, 'a');
  }

  async put(records: SinkRecord[]): Promise<void> {
    if (records.length === 0) return;
    const text = records.map((r) => lineOf(r.value) + '\n').join('');
    if (this.file === null) process.stdout.write(text);
    else await this.file.write(text);
  }

  async flush(): Promise<void> {
    await this.file?.sync();
  }

  async stop(): Promise<void> {
    const f = this.file;
    this.file = null;
    await f?.close();
  }
}
