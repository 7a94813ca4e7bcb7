#!/usr/bin/env node
// The start-up bundle of `tributary start` (src/cli/start-bundle.ts): rollup joins
// dist/src/cli/program.js and the modules it imports into one CommonJS script,
// dist/src/cli-bundle/start.cjs, so a start reads and compiles one file instead
// of about 250 (on Node 20 the ESM loader's per-file work was most of start-up:
// bench/README.md, "Start-up"). The bin runs it in a vm.Script with a V8 code
// cache (src/cli/start-bundle.ts): one script, so one cache. Run by `npm run build`
// after tsc, and by scripts/prestart.mjs when the bundle is not fresh.
//
// Not bundled: node: built-ins and packages (node_modules; require() calls of the
// script), and the client commands (src/cli/commands/), which `start` never loads;
// the bin only runs the bundle for `start`. Modules the broker imports with import()
// on demand (the cluster-node wiring, the metrics exporter) are inlined.
// Every module that reads import.meta must be listed below with why its use stays
// right from dist/src/cli-bundle/ (same depth as dist/src/cli/); anything else
// fails the bundle.
//
// Without rollup (an install without dev dependencies) nothing is bundled and
// `tributary start` runs the modules of dist/src; the old bundle is removed either way.
//
//   node scripts/bundle-start.mjs          # after tsc -p tsconfig.build.json
//   node scripts/bundle-start.mjs --check  # exit 0 when the bundle is fresh, 1 when not
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const distSrc = join(root, 'dist', 'src');
const outDir = join(distSrc, 'cli-bundle');
const input = join(distSrc, 'cli', 'program.js');
const commandsDir = join(distSrc, 'cli', 'commands') + sep;
/** The script (START_BUNDLE_ENTRY in src/cli/start-bundle.ts). */
const START_BUNDLE_FILE = 'start.cjs';

/** Modules that may read import.meta, and why that stays right in the bundle. */
const IMPORT_META_ALLOWED = new Map([
  // ../../../package.json: dist/src/cli-bundle/ is as deep as dist/src/cli/.
  ['cli/program.js', 'package.json path, same depth'],
  // createRequire(import.meta.url) only resolves packages from node_modules, found from any folder of the repository.
  ['protocol/record-batch/compression.js', 'package resolution'],
]);

// The wrapper the bin's loader expects around each chunk (src/cli/bundle-loader.ts).
const { CHUNK_WRAPPER_HEAD, CHUNK_WRAPPER_TAIL } = await import(pathToFileURL(join(distSrc, 'cli', 'bundle-loader.js')).href);

if (process.argv.includes('--check')) {
  const { freshStartBundle } = await import(pathToFileURL(join(distSrc, 'cli', 'start-bundle.js')).href);
  process.exit(freshStartBundle({}) === null ? 1 : 0);
}

if (!existsSync(input)) {
  console.error(`${relative(root, input)} missing: build first (npx tsc -p tsconfig.build.json)`);
  process.exit(1);
}
rmSync(outDir, { recursive: true, force: true });

let rollup;
try {
  ({ rollup } = await import('rollup'));
} catch {
  console.log('bundle-start: rollup is not installed (no dev dependencies): tributary start runs the modules of dist/src');
  process.exit(0);
}

/**
 * Whether a package's entry for require() is CommonJS (its file is .cjs, or .js under a package.json
 * without "type": "module"). Found from the bundle's folder, as the bundle will find it.
 */
function isCommonJsPackage(name) {
  let file;
  try {
    file = createRequire(join(outDir, 'x.js')).resolve(name);
  } catch {
    return false; // no require() entry (an ES-module-only package)
  }
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (!existsSync(join(dir, 'package.json'))) continue;
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type !== 'module';
  }
  return true;
}

/** An import of a package from node_modules (not node:, not a path). */
function isBarePackage(id) {
  return !id.startsWith('node:') && !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0');
}

// V8 keeps each script's source in the heap for as long as the script lives (functions compile from
// it on first call): the comments, a fifth of the 1.4 MB broker chunk, were about 0.3 MiB of the idle
// broker's RSS (bench/README.md, "Idle RSS"). TypeScript re-emits the chunk without them (about 1.5 s;
// string literals keep their source text), and the result must parse to the same syntax tree.
// Without TypeScript (no dev dependencies) the chunk keeps its comments.
const { parseAst } = await import('rollup/parseAst');
let typescript = null;
try {
  typescript = (await import('typescript')).default;
} catch {
  // comments stay
}
/** The chunk without comments, and its syntax tree (withoutIndentation starts from it). */
function withoutComments(code) {
  if (typescript === null) return { code, tree: parseAst(code) };
  const ts = typescript;
  // The chunk's body only: printed inside the wrapper, every line would be indented (and the wrapper changed).
  const tail = code.endsWith(`${CHUNK_WRAPPER_TAIL}\n`) ? `${CHUNK_WRAPPER_TAIL}\n` : CHUNK_WRAPPER_TAIL;
  if (!code.startsWith(CHUNK_WRAPPER_HEAD) || !code.endsWith(tail)) throw new Error('a chunk without the loader\'s wrapper');
  const body = code.slice(CHUNK_WRAPPER_HEAD.length, code.length - tail.length);
  const printed = ts.transpileModule(body, { fileName: 'chunk.js', compilerOptions: { removeComments: true, allowJs: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None } }).outputText;
  const result = `${CHUNK_WRAPPER_HEAD}\n${printed}${tail}`;
  // Comments are not in the syntax tree: the re-printed chunk must parse to the same one.
  const tree = parseAst(result);
  if (!sameTree(parseAst(code), tree)) throw new Error('re-printing without comments changed the syntax tree');
  return { code: result, tree };
}

// The same reason for the indentation, 16% of the printed chunk: each line's leading spaces go,
// except where they are a string's or a template's own text (found from rollup's parser). The
// result must parse to the same syntax tree, or the bundle fails: only whitespace between tokens
// may change. Line numbers stay.
/** `code` (whose syntax tree is `before`) without each line's leading whitespace. */
function withoutIndentation({ code, tree: before }) {
  const textRanges = [];
  forEachNode(before, (n) => {
    if (n.type === 'TemplateElement' || (n.type === 'Literal' && typeof n.value === 'string')) textRanges.push([n.start, n.end]);
  });
  textRanges.sort((x, y) => x[0] - y[0]);
  const out = [];
  let r = 0;
  let from = 0;
  for (let lineStart = code.indexOf('\n') + 1; lineStart > 0; lineStart = code.indexOf('\n', lineStart) + 1) {
    while (r < textRanges.length && textRanges[r][1] <= lineStart) r++;
    const inText = r < textRanges.length && textRanges[r][0] < lineStart;
    let end = lineStart;
    while (!inText && (code.charCodeAt(end) === 32 || code.charCodeAt(end) === 9)) end++;
    if (end > lineStart) {
      out.push(code.slice(from, lineStart));
      from = end;
    }
  }
  out.push(code.slice(from));
  const result = out.join('');
  if (!sameTree(before, parseAst(result))) throw new Error('removing indentation changed the syntax tree');
  return result;
}
/** Calls `fn` on every node of an ESTree tree. */
function forEachNode(node, fn) {
  if (Array.isArray(node)) {
    for (const x of node) forEachNode(x, fn);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if (typeof node.type === 'string') fn(node);
  for (const k in node) if (k !== 'start' && k !== 'end') forEachNode(node[k], fn);
}
/** Two ESTree trees equal but for positions and rollup's notes of annotation comments (#__PURE__, inert at run time). */
function sameTree(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const compared = (k) => k !== 'start' && k !== 'end' && k !== '_rollupAnnotations';
  const keys = Object.keys(a).filter(compared);
  if (keys.length !== Object.keys(b).filter(compared).length) return false;
  for (const k of keys) if (!sameTree(a[k], b[k])) return false;
  return true;
}

const startedMs = performance.now();
const startBundlePlugin = {
  name: 'tributary-start-bundle',
  // A client command stays a file of dist/src/cli/commands/ (an external module with its absolute path).
  resolveId(source, importer) {
    if (importer === undefined || !source.startsWith('.')) return null;
    const path = resolve(dirname(importer), source);
    return path.startsWith(commandsDir) ? { id: path, external: true } : null;
  },
  // Packages and Node's built-in modules become require() calls of the script: an ES-module-only
  // package could not be required on Node 20, so it fails the bundle.
  buildEnd() {
    for (const id of this.getModuleIds()) {
      if (isBarePackage(id) && this.getModuleInfo(id)?.isExternal === true && !isCommonJsPackage(id)) this.error(`${id} is an ES-module-only package: the CommonJS start bundle cannot require() it`);
    }
  },
  // The script runs in a vm.Script (src/cli/start-bundle.ts), which has no import() of its own: a client
  // command's import() calls the importModule the bin passes in (an import() from the bin's module,
  // relative to the bundle's file). The broker's own import()s are inlined (inlineDynamicImports).
  renderDynamicImport({ targetModuleId }) {
    if (targetModuleId === null || !targetModuleId.startsWith(commandsDir)) return null;
    return { left: 'importModule(', right: ')' };
  },
  // V8 keeps a script's source as one-byte (Latin-1) text unless a single character needs two
  // bytes: then the whole source is stored as UTF-16. The ~20 such characters (dashes, arrows in
  // comments and a config doc) would double the memory of the 1.4 MB script's source. Every
  // character outside ASCII is written as a \uXXXX escape (same value in strings, templates,
  // regexps and identifiers; inert in comments): the source stays one-byte, and the bin reads the
  // file as Latin-1, a byte per character, instead of decoding UTF-8 (about 8 ms less per start).
  // Under String.raw an escape would differ: refused.
  renderChunk(code, chunk) {
    if (code.includes('String.raw') && /[^\x00-\x7f]/.test(code)) this.error(`${chunk.fileName}: String.raw beside non-ASCII text; escaping would change it`);
    return withoutIndentation(withoutComments(code)).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  },
  resolveImportMeta(_property, { moduleId }) {
    const path = relative(distSrc, moduleId).split(sep).join('/');
    if (!IMPORT_META_ALLOWED.has(path)) {
      this.error(`${path} reads import.meta: check that its use stays right from dist/src/cli-bundle/ and list it in scripts/bundle-start.mjs`);
    }
    return null; // rollup's CommonJS form: the URL of __filename, the bundle's file
  },
};
const bundle = await rollup({
  input,
  plugins: [startBundlePlugin],
  // Node's built-in modules and the packages from node_modules stay outside: require() calls.
  external: (id) => id.startsWith('node:') || isBarePackage(id),
  makeAbsoluteExternalsRelative: false,
  onwarn(warning, warn) {
    // The broker's modules import each other in cycles that ESM resolves at run time; rollup keeps their order.
    if (warning.code === 'CIRCULAR_DEPENDENCY') return;
    warn(warning);
  },
});
const { output } = await bundle.write({
  dir: outDir,
  format: 'cjs',
  entryFileNames: START_BUNDLE_FILE,
  chunkFileNames: '[name]-[hash].cjs',
  // As Node's ES import of a CommonJS module: the default import is module.exports, named imports read its properties.
  interop: 'default',
  exports: 'named',
  generatedCode: 'es2015',
  // Run by src/cli/bundle-loader.ts, as Node's loader runs a CommonJS module (not require()able itself).
  banner: CHUNK_WRAPPER_HEAD,
  footer: CHUNK_WRAPPER_TAIL,
  // A chunk requires what it uses, not also what the chunks it requires use.
  hoistTransitiveImports: false,
  // A client command's absolute path, written relative to the bundle (../cli/commands/x.js).
  paths: (id) => (id.startsWith(commandsDir) ? relative(outDir, id).split(sep).join('/') : id),
});
await bundle.close();

const inputs = [];
for (const item of output) {
  if (item.type !== 'chunk') continue;
  for (const id of Object.keys(item.modules)) {
    if (!id.startsWith(distSrc + sep)) continue;
    const stat = statSync(id);
    inputs.push([relative(distSrc, id).split(sep).join('/'), stat.size, stat.mtimeMs]);
  }
}
inputs.sort((a, b) => (a[0] < b[0] ? -1 : 1));
// Written last: a bundle interrupted before this line has no inputs.json and is never run.
writeFileSync(join(outDir, 'inputs.json'), `${JSON.stringify({ format: 1, inputs })}\n`);
console.log(`bundle-start: ${inputs.length} modules -> ${relative(root, join(outDir, START_BUNDLE_FILE))} (${Math.round(performance.now() - startedMs)} ms)`);
