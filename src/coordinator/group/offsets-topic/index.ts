/** __consumer_offsets: record formats, partitioning, the store (GroupPersistence) and the loader. See README.md. */
export * from './errors.js';
export * from './loader.js';
export * from './partitioner.js';
export * from './records.js';
export * from './store.js';
export * from './topic-config.js';
