export * from './types.js';
export * from './storage.js';
export * from './roles.js';
export { RaftNode } from './raft-node.js';
