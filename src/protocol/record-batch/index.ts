/** Record batch v2: header layout, records, codecs, builder, reader, produce validation. */
export * from './header.js';
export * from './record.js';
export * from './compression.js';
export * from './builder.js';
export * from './reader.js';
export * from './control.js';
