/** The Connector API's public surface (see README.md and docs/connect.md). */
export { ConfigDef, ConfigException, ParsedConfig, Validators, invalidValue, missingValue } from './config-def.js';
export type { ConfigImportance, ConfigKeyDef, ConfigKeyType, ConfigParsed, ConfigValidator, ConfigValue } from './config-def.js';
export { DataError, Schemas, Struct, asOptional, fieldOf, schemaEquals, validateValue, valueEquals } from './data/schema.js';
export type { Field, Schema, SchemaOptions, SchemaType } from './data/schema.js';
export { ConnectError, RetriableError, sourceRecord, withChanges } from './spi.js';
export type {
  ConnectHeader,
  ConnectRecord,
  Connector,
  ConnectorClass,
  ConnectorContext,
  ErrantRecordReporter,
  OffsetStorageReader,
  SinkConnector,
  SinkOffsets,
  SinkRecord,
  SinkTask,
  SinkTaskClass,
  SinkTaskContext,
  SourceConnector,
  SourceConnectorContext,
  SourceOffset,
  SourcePartition,
  SourceRecord,
  SourceRecordMetadata,
  SourceTask,
  SourceTaskClass,
  SourceTaskContext,
  TopicPartitionRef,
} from './spi.js';
export { ByteArrayConverter, JsonConverter, StringConverter } from './converters/index.js';
export type { Converter, ConverterClass, SchemaAndValue } from './converters/index.js';
export { TransformationChain } from './transforms/index.js';
export type { Predicate, PredicateClass, Transformation, TransformationClass } from './transforms/index.js';
export { FileStreamSinkConnector, FileStreamSinkTask } from './file/sink.js';
export { FileStreamSourceConnector, FileStreamSourceTask } from './file/source.js';
export { PostgresCdcSourceConnector, PostgresCdcSourceTask, PostgresSinkConnector, PostgresSinkTask, PostgresSourceConnector, PostgresSourceTask } from './postgres/index.js';
export { PluginLoadError, Plugins } from './plugins.js';
export type { ConnectPluginManifest, ConnectorPluginInfo } from './plugins.js';
export { startStandalone } from './standalone.js';
export type { ConnectWorkerHandle } from './standalone.js';
export { startDistributed } from './distributed/start.js';
export type { DistributedWorkerHandle } from './distributed/start.js';
export type { Herder } from './runtime/herder.js';
