const base = process.memoryUsage().rss;
const t0 = performance.now();
for (const m of process.argv.slice(2)) await import(m.startsWith('/') ? m : m);
const t1 = performance.now();
const mu = process.memoryUsage();
console.log(process.argv.slice(2).map(m=>m.split('/').slice(-2).join('/')).join('+'), Math.round(t1 - t0), 'ms', 'rss +', Math.round((mu.rss-base)/1048576), 'MB', 'heap', Math.round(mu.heapUsed/1048576), 'ext', Math.round(mu.external/1048576));
