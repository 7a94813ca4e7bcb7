let n = 0; const pk = {};
export async function load(url, context, next) {
  if (url.startsWith('file:')) { n++; const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url); const k = m ? m[1] : 'tributary'; pk[k] = (pk[k] ?? 0) + 1; }
  return next(url, context);
}
process.on('exit', () => console.error('ESM modules loaded:', n, JSON.stringify(pk)));
