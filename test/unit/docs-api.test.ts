/**
 * The package's public API is documented: every class, function, interface,
 * type alias and enum exported from src/index.ts (the `tributary` entry,
 * which re-exports the client), and every public method and accessor of the
 * exported classes, has a doc comment. These comments are what
 * `npm run docs:api` (typedoc) turns into docs/api/. Also checks that the
 * generated reference is there and names the main classes.
 *
 * Uses the TypeScript compiler API (binding only, no type check), so it runs
 * in seconds; typedoc itself takes over a minute on this machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function exportedDeclarations(): { name: string; decl: ts.Declaration; checker: ts.TypeChecker }[] {
  const program = ts.createProgram([`${root}src/index.ts`], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
    noResolve: false,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(`${root}src/index.ts`);
  assert.ok(entry !== undefined, 'src/index.ts not found');
  const moduleSymbol = checker.getSymbolAtLocation(entry);
  assert.ok(moduleSymbol !== undefined);
  const out: { name: string; decl: ts.Declaration; checker: ts.TypeChecker }[] = [];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    for (const decl of symbol.declarations ?? []) out.push({ name: exported.name, decl, checker });
  }
  return out;
}

function hasDoc(node: ts.Node): boolean {
  return ts.getJSDocCommentsAndTags(node).some((d) => ts.isJSDoc(d) && (d.comment !== undefined || (d.tags?.length ?? 0) > 0));
}

function where(node: ts.Node): string {
  const file = node.getSourceFile();
  const { line } = file.getLineAndCharacterOfPosition(node.getStart());
  return `${file.fileName.slice(root.length)}:${line + 1}`;
}

const isPublic = (m: ts.ClassElement): boolean =>
  !(ts.getCombinedModifierFlags(m as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) && !(m.name !== undefined && ts.isPrivateIdentifier(m.name));

test('every exported class, function, interface, type alias and public method of the package has a doc comment', () => {
  const missing: string[] = [];
  const seen = new Set<ts.Node>();
  let checked = 0;
  for (const { name, decl } of exportedDeclarations()) {
    if (seen.has(decl) || decl.getSourceFile().isDeclarationFile) continue;
    seen.add(decl);
    if (ts.isClassDeclaration(decl)) {
      checked++;
      if (!hasDoc(decl)) missing.push(`class ${name} (${where(decl)})`);
      for (const member of decl.members) {
        if (!isPublic(member)) continue;
        if (!ts.isMethodDeclaration(member) && !ts.isGetAccessorDeclaration(member) && !ts.isSetAccessorDeclaration(member)) continue;
        const memberName = member.name.getText();
        // Overloads: one documented signature is enough.
        const siblings = decl.members.filter((m) => m.name?.getText() === memberName);
        checked++;
        if (!siblings.some(hasDoc) && siblings[0] === member) missing.push(`${name}.${memberName} (${where(member)})`);
      }
    } else if (ts.isFunctionDeclaration(decl) || ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl) || ts.isEnumDeclaration(decl)) {
      checked++;
      if (!hasDoc(decl)) missing.push(`${ts.SyntaxKind[decl.kind].replace('Declaration', '')} ${name} (${where(decl)})`);
    }
  }
  assert.ok(checked > 100, `only ${checked} declarations found: is src/index.ts exporting the client?`);
  assert.deepEqual(missing, [], `undocumented exports:\n  ${missing.join('\n  ')}`);
});

test('docs/client.md has a configuration row for every option of the Producer, Consumer and cluster options', () => {
  const guide = readFileSync(`${root}docs/client.md`, 'utf8');
  const byName = new Map<string, { decl: ts.Declaration; checker: ts.TypeChecker }>();
  for (const { name, decl, checker } of exportedDeclarations()) if (ts.isInterfaceDeclaration(decl)) byName.set(name, { decl, checker });
  const missing: string[] = [];
  for (const name of ['ProducerOptions', 'ConsumerOptions', 'ClusterOptions']) {
    const found = byName.get(name);
    assert.ok(found !== undefined, `${name} is not exported`);
    const type = found.checker.getTypeAtLocation(found.decl);
    const props = type.getProperties().map((p) => p.name);
    assert.ok(props.length >= 5, `${name}: ${props.join(', ')}`);
    for (const prop of props) if (!guide.includes(`| \`${prop}\` |`)) missing.push(`${name}.${prop}`);
  }
  assert.deepEqual(missing, [], `options without a row in docs/client.md: ${missing.join(', ')}`);
});

test('the generated API reference (npm run docs:api) is checked in and covers the main classes', () => {
  const dir = `${root}docs/api`;
  assert.ok(existsSync(dir), 'docs/api is missing: run npm run docs:api');
  const files = readdirSync(dir, { recursive: true }).map(String);
  for (const cls of ['Admin', 'Producer', 'Consumer', 'KafkaProtocolError', 'TributaryError']) {
    assert.ok(
      files.some((f) => f.endsWith(`/${cls}.md`) || f === `${cls}.md`),
      `docs/api has no page for ${cls}`,
    );
  }
  assert.match(readFileSync(`${dir}/README.md`, 'utf8'), /Admin/);
});
