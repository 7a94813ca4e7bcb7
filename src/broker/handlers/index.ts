/** Every request handler the broker serves; ApiVersions advertises exactly these. */
import type { AnyHandler } from '../handler.js';
import { produceHandler } from './00-produce.js';
import { fetchHandler } from './01-fetch.js';
import { listOffsetsHandler } from './02-list-offsets.js';
import { metadataHandler } from './03-metadata.js';
import { apiVersionsHandler } from './18-api-versions.js';
import { createTopicsHandler } from './19-create-topics.js';
import { deleteTopicsHandler } from './20-delete-topics.js';
import { createPartitionsHandler } from './37-create-partitions.js';

export const allHandlers: readonly AnyHandler[] = [
  produceHandler,
  fetchHandler,
  listOffsetsHandler,
  metadataHandler,
  apiVersionsHandler,
  createTopicsHandler,
  deleteTopicsHandler,
  createPartitionsHandler,
] as unknown as readonly AnyHandler[];
