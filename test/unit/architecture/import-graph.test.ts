/**
 * The layering of docs/architecture.md, enforced: every import in src/ (static
 * `import`, `export ... from`, and `import()` with a string literal) is read
 * with the TypeScript parser, and the test fails on
 *
 * 1. an import from a floor to a higher floor, or to another folder on the
 *    same floor (a floor imports only from floors below it);
 * 2. `src/client` imported by server-side code (broker, controller,
 *    replication, coordinator, storage, security) or by the layers below it;
 * 3. a cycle of value imports between files (`import type` is erased at
 *    compile time and does not count).
 *
 * Each violation is printed as `file:line: what`. Kafka enforces the same
 * kind of rule with checkstyle's import-control.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..', '..', '..');
const srcRoot = join(root, 'src');

/**
 * The floor of each top-level folder of src/ (docs/architecture.md). The
 * client sits between floors 3 and 4: it builds on src/net and src/protocol,
 * and the client applications (floor 5) build on it.
 */
const FLOORS: Readonly<Record<string, number>> = {
  util: 1,
  config: 2,
  protocol: 2,
  net: 3,
  storage: 3,
  client: 3.5,
  replication: 4,
  controller: 4,
  coordinator: 5,
  security: 5,
  streams: 5,
  connect: 5,
  // MirrorMaker runs its connectors on the Connect runtime, as Kafka's MM2 does.
  mirror: 5.5,
  broker: 6,
  embedded: 7,
  // The command sits on top: `cluster up` runs the embedded launcher.
  cli: 8,
  'index.ts': 8,
};

/** What the client library may import: it talks to brokers through src/net only. */
const CLIENT_MAY_IMPORT: ReadonlySet<string> = new Set(['util', 'config', 'protocol', 'net']);

/** Server-side code and the layers below the client never import it. */
const NO_CLIENT: ReadonlySet<string> = new Set([
  'broker', 'controller', 'replication', 'coordinator', 'storage', 'security', 'protocol', 'net', 'util', 'config',
]);

/**
 * Known violations, each waiting for a change that removes it. The list only
 * shrinks: an entry that no longer matches a violation fails the test too, so
 * whoever fixes one deletes its line. Keys are `file -> imported file`
 * (paths from the repository root) for floor rules, and `cycle: file` (the
 * first file of the cycle, sorted) for cycles.
 */
const ALLOWED: ReadonlyMap<string, string> = new Map<string, string>([
]);

interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly line: number;
  readonly typeOnly: boolean;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  if (bindings === undefined || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Every relative import of one file, resolved to a .ts path under the repository. */
function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, node: ts.Node, typeOnly: boolean): void => {
    if (!specifier.startsWith('.')) return; // packages and node: builtins
    const to = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    edges.push({ from: file, to, line, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node, isTypeOnlyImport(node));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node, isTypeOnlyExport(node));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg !== undefined && ts.isStringLiteralLike(arg)) add(arg.text, node, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, node, true); // `import('./x.js').T` in a type position
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

/** The top-level folder of src/ a file belongs to (`index.ts` for the package entry). */
function layerOf(file: string): string | undefined {
  const rel = relative(srcRoot, file);
  if (rel.startsWith('..')) return undefined;
  const first = rel.split(/[\\/]/)[0] ?? rel;
  return first;
}

function where(edge: ImportEdge): string {
  return `${relative(root, edge.from)}:${edge.line}`;
}

function edgeKey(edge: ImportEdge): string {
  return `${relative(root, edge.from)} -> ${relative(root, edge.to)}`;
}

interface Violation {
  readonly key: string;
  readonly message: string;
}

function floorViolations(edges: readonly ImportEdge[]): Violation[] {
  const out: Violation[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    if (from === undefined || to === undefined || from === to) continue;
    const fromFloor = FLOORS[from];
    const toFloor = FLOORS[to];
    const target = relative(root, edge.to);
    if (fromFloor === undefined || toFloor === undefined) {
      out.push({ key: edgeKey(edge), message: `${where(edge)}: src/${fromFloor === undefined ? from : to} has no floor in this test (add it to FLOORS and docs/architecture.md)` });
    } else if (to === 'client' && NO_CLIENT.has(from)) {
      out.push({ key: edgeKey(edge), message: `${where(edge)}: src/${from} imports the client library (${target}); use src/net` });
    } else if (from === 'client' && !CLIENT_MAY_IMPORT.has(to)) {
      out.push({ key: edgeKey(edge), message: `${where(edge)}: src/client imports src/${to} (${target}); the client builds on util, config, protocol and net only` });
    } else if (toFloor >= fromFloor && !edge.typeOnly) {
      out.push({ key: edgeKey(edge), message: `${where(edge)}: src/${from} (floor ${fromFloor}) imports src/${to} (floor ${toFloor}): ${target}` });
    } else if (toFloor >= fromFloor) {
      out.push({ key: edgeKey(edge), message: `${where(edge)}: src/${from} (floor ${fromFloor}) imports types from src/${to} (floor ${toFloor}): ${target}` });
    }
  }
  return out;
}

/** Strongly connected components of the value-import graph with more than one file (Tarjan). */
function valueCycles(files: readonly string[], edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const f of files) next.set(f, []);
  for (const e of edges) if (!e.typeOnly && next.has(e.to)) next.get(e.from)?.push(e.to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (next.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) connect(f);
  return components;
}

function cycleViolations(files: readonly string[], edges: readonly ImportEdge[]): Violation[] {
  return valueCycles(files, edges).map((component) => {
    const members = new Set(component);
    const inside = edges.filter((e) => !e.typeOnly && members.has(e.from) && members.has(e.to));
    const lines = inside.map((e) => `    ${where(e)} imports ${relative(root, e.to)}`);
    return {
      key: `cycle: ${relative(root, component[0] ?? '')}`,
      message: `value-import cycle among ${component.length} files:\n${lines.join('\n')}`,
    };
  });
}

function check(violations: readonly Violation[], what: string): void {
  const unexpected = violations.filter((v) => !ALLOWED.has(v.key));
  const stale = [...ALLOWED.keys()].filter((k) => k.startsWith('cycle: ') === (what === 'cycles') && !violations.some((v) => v.key === k));
  const report = [
    ...unexpected.map((v) => v.message),
    ...stale.map((k) => `allow-list entry no longer needed (delete it): ${k}`),
  ];
  assert.equal(report.length, 0, `${what}:\n${report.join('\n')}`);
}

const files = sources(srcRoot);
const edges = files.flatMap(importsOf);

test('the import parser sees every kind of import', () => {
  // A sanity check on the parser itself, so that a silent zero does not pass.
  const kinds = { dynamic: 0, reexport: 0, typeOnly: 0, value: 0 };
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (/await import\('\.\.?\//.test(text)) kinds.dynamic++;
    if (/^export \{[^}]*\} from '\./m.test(text)) kinds.reexport++;
  }
  for (const e of edges) {
    if (e.typeOnly) kinds.typeOnly++;
    else kinds.value++;
  }
  assert.ok(files.length > 100, `only ${files.length} files under src/`);
  assert.ok(kinds.dynamic > 0 && kinds.reexport > 0 && kinds.typeOnly > 0 && kinds.value > 0, JSON.stringify(kinds));
  const dynamicEdges = edges.filter((e) => readFileSync(e.from, 'utf8').split('\n')[e.line - 1]?.includes('import(') === true);
  assert.ok(dynamicEdges.length > 0, 'no import() edge was recorded');
  for (const e of edges) assert.ok(statSync(e.to, { throwIfNoEntry: false })?.isFile() === true, `${where(e)}: ${relative(root, e.to)} does not exist`);
});

test('imports go down the floors; src/client stays out of server-side code', () => {
  check(floorViolations(edges), 'floors');
});

test('no value-import cycle between files', () => {
  check(cycleViolations(files, edges), 'cycles');
});

test('the floor table covers every folder of src/', () => {
  const folders = readdirSync(srcRoot).filter((name) => name === 'index.ts' || statSync(join(srcRoot, name)).isDirectory());
  assert.deepEqual(folders.filter((f) => FLOORS[f] === undefined), []);
});

test('the checks catch planted violations (so a pass means something)', () => {
  const f = (p: string): string => join(srcRoot, p);
  const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from: f(from), to: f(to), line: 7, typeOnly });
  const planted = [
    edge('storage/a.ts', 'broker/b.ts'),
    edge('broker/b.ts', 'client/c.ts'),
    edge('client/c.ts', 'storage/a.ts'),
    edge('net/n.ts', 'storage/a.ts'),
    edge('broker/b.ts', 'storage/a.ts'),
    edge('cli/x.ts', 'client/c.ts'),
    edge('util/t.ts', 'util/u.ts', true),
    edge('util/u.ts', 'util/t.ts'),
  ];
  const floors = floorViolations(planted).map((v) => v.message);
  assert.deepEqual(floors, [
    'src/storage/a.ts:7: src/storage (floor 3) imports src/broker (floor 6): src/broker/b.ts',
    'src/broker/b.ts:7: src/broker imports the client library (src/client/c.ts); use src/net',
    'src/client/c.ts:7: src/client imports src/storage (src/storage/a.ts); the client builds on util, config, protocol and net only',
    'src/net/n.ts:7: src/net (floor 3) imports src/storage (floor 3): src/storage/a.ts',
  ]);
  const plantedFiles = [...new Set(planted.flatMap((e) => [e.from, e.to]))];
  const cycles = cycleViolations(plantedFiles, planted);
  assert.equal(cycles.length, 1, 'the storage/broker cycle only; the util cycle is half type-only');
  assert.match(cycles[0]?.message ?? '', /src\/storage\/a\.ts:7 imports src\/broker\/b\.ts/);
});
