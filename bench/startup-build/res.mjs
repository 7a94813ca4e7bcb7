import { startCluster } from './dist/src/index.js';
const c = await startCluster({ isolation: process.argv[2] ?? 'worker' });
await c.stop();
console.log(process.getActiveResourcesInfo());
