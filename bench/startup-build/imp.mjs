const t0 = performance.now();
const m = await import(process.argv[2]);
const t1 = performance.now();
console.log(process.argv[2].split('/').slice(-2).join('/'), Math.round(t1 - t0), 'ms', 'rss', Math.round(process.memoryUsage().rss/1048576), 'MB', 'heapUsed', Math.round(process.memoryUsage().heapUsed/1048576));
