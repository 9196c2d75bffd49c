// The layer check: fails when an import goes the wrong way between app/, components/, lib/, cli/ and mcp/
// (the arrows in ../shared/STYLE.md §1), or when lib/vault reads process.env.
// Run: node --import tsx scripts/check-layers.ts [root]   (exit 1 and one line per violation on stderr)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseSync } from 'oxc-parser';

/** One import as the checker sees it: where it points and whether only types cross. */
export interface ImportEdge {
  specifier: string;
  /** Repo-relative path of the file it resolves to (posix), or null for a package. */
  target: string | null;
  typeOnly: boolean;
  line: number;
}

export interface Violation {
  file: string;
  line: number;
  message: string;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', '.next', '.git', '.lucid-demo', '.lucid', '.ci-out', 'test-results', 'playwright-report', 'bench-out']);
const CHECKED_ROOTS = ['app', 'components', 'lib', 'cli', 'mcp', 'proxy.ts'];
const FRAMEWORK = /^(next|react|react-dom|server-only|client-only|@tanstack\/react-query)(\/.*)?$/;
const VAULT_INDEX = 'lib/vault/index.ts';

const under = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);
const isVault = (target: string | null) => target !== null && under(target, 'lib/vault');

/** The rules, one function per layer; each returns a message for a wrong import or null. */
/** The rooms of lib/vault that agents/ and inbox/ are built on; they never import those. */
const ROOMS_BELOW_AGENTS = ['lib/vault/notes', 'lib/vault/git', 'lib/vault/write', 'lib/vault/search'];
/** lib/vault's top rooms: the operations agents and people call (inbox/ may use agents/' helpers). */
const TOP_ROOMS = ['lib/vault/agents', 'lib/vault/inbox'];

export function ruleFor(file: string, edge: ImportEdge): string | null {
  const { specifier, target, typeOnly } = edge;
  if (under(file, 'lib/vault')) {
    if (target === null && FRAMEWORK.test(specifier)) return `lib/vault must stay plain Node: it imports '${specifier}'`;
    if (target !== null && !isVault(target)) return `lib/vault imports ${target}: the domain depends on nothing outside lib/vault`;
    const top = target === null ? undefined : TOP_ROOMS.find((room) => under(target, room));
    if (top && ROOMS_BELOW_AGENTS.some((room) => under(file, room))) {
      return `${top.slice('lib/vault/'.length)}/ is one of lib/vault's top rooms: ${file} may not import it (imports ${target})`;
    }
    return null;
  }
  if (under(file, 'lib/demo')) {
    if (target === null && FRAMEWORK.test(specifier)) return `lib/demo runs in the CLI: it imports '${specifier}'`;
    if (target !== null && !isVault(target) && !under(target, 'lib/demo')) return `lib/demo drives lib/vault and nothing else (imports ${target})`;
    return null;
  }
  if (under(file, 'lib') && target !== null && (under(target, 'app') || under(target, 'components'))) {
    return `nothing in lib/ imports app/ or components/ (imports ${target})`;
  }
  if (under(file, 'lib/server') && target !== null && (under(target, 'lib/actions') || under(target, 'lib/queries')) && !typeOnly) {
    return `lib/server is below lib/actions and lib/queries: it may import their types only (imports ${target})`;
  }
  if (under(file, 'lib/markdown') && isVault(target) && !under(target as string, 'lib/vault/notes')) {
    return `lib/markdown may import only lib/vault/notes' syntax modules (imports ${target})`;
  }
  if (under(file, 'lib/markdown') && target !== null && (under(target, 'lib/server') || under(target, 'lib/actions'))) {
    return `lib/markdown renders; it does not read (imports ${target})`;
  }
  if (under(file, 'components')) {
    if (target !== null && under(target, 'app')) return `components never import app/ (imports ${target})`;
    if (target !== null && under(target, 'lib/server'))
      return `components never import lib/server: the page reads through lib/server/data.ts and passes props (imports ${target})`;
    if (isVault(target) && !typeOnly) return `components import only types from lib/vault (imports values from ${target}; write \`import type\`)`;
  }
  if (under(file, 'app') || under(file, 'components') || under(file, 'lib/server') || under(file, 'lib/actions') || under(file, 'lib/queries')) {
    if (isVault(target) && target !== VAULT_INDEX) return `import lib/vault through its index ('@/lib/vault'), not ${target}`;
  }
  if (under(file, 'app') && isVault(target) && !typeOnly) {
    return `app/ imports only types from lib/vault: pages read through lib/server/data.ts (imports values from ${target})`;
  }
  if (under(file, 'cli') || under(file, 'mcp')) {
    const self = under(file, 'cli') ? 'cli' : 'mcp';
    if (target === null) return FRAMEWORK.test(specifier) ? `${self}/ runs without Next or React: it imports '${specifier}'` : null;
    if (under(target, self)) return null;
    if (target === VAULT_INDEX) return null;
    if (self === 'cli' && (target === 'mcp/server.ts' || under(target, 'lib/demo'))) return null;
    if (self === 'cli' && target === 'package.json') return null;
    return `${self}/ imports only lib/vault's index${self === 'cli' ? ', mcp/server.ts and lib/demo' : ''} (imports ${target})`;
  }
  return null;
}

/** Resolves a specifier the way tsconfig does here (`@/` is the repo root); null for packages. */
function resolve(root: string, fromFile: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith('@/')) base = path.join(root, specifier.slice(2));
  else if (specifier.startsWith('.')) base = path.resolve(path.dirname(path.join(root, fromFile)), specifier);
  else return null;
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}.js`, `${base}.mjs`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')];
  const found = candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? base;
  return path.relative(root, found).split(path.sep).join('/');
}

/** Every import, re-export and literal dynamic import of one source file. */
export function importsOf(root: string, file: string, source: string): { edges: ImportEdge[]; envReads: number[]; errors: string[] } {
  const parsed = parseSync(file, source);
  const lineOf = (offset: number) => source.slice(0, offset).split('\n').length;
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean, offset: number) =>
    edges.push({ specifier, target: resolve(root, file, specifier), typeOnly, line: lineOf(offset) });
  for (const imp of parsed.module.staticImports) {
    add(imp.moduleRequest.value, imp.entries.length > 0 && imp.entries.every((e) => e.isType), imp.start);
  }
  for (const exp of parsed.module.staticExports) {
    for (const entry of exp.entries) if (entry.moduleRequest) add(entry.moduleRequest.value, entry.isType, entry.start);
  }
  for (const dyn of parsed.module.dynamicImports) {
    const text = source.slice(dyn.moduleRequest.start, dyn.moduleRequest.end).trim();
    const literal = /^(['"`])([^'"`$]*)\1$/.exec(text);
    if (literal) add(literal[2], false, dyn.start);
  }
  const envReads: number[] = [];
  walk(parsed.program, (node) => {
    if (node.type === 'MemberExpression' && isIdentifier(node.object, 'process') && memberName(node) === 'env') envReads.push(lineOf(node.start as number));
    if (node.type === 'VariableDeclarator' && isIdentifier(node.init, 'process') && destructures(node.id, 'env')) envReads.push(lineOf(node.start as number));
  });
  return { edges, envReads, errors: parsed.errors.map((e) => e.message) };
}

type AstNode = { type: string; [key: string]: unknown };

function walk(node: unknown, visit: (node: AstNode) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const record = node as AstNode;
  if (typeof record.type === 'string') visit(record);
  for (const key of Object.keys(record)) if (key !== 'parent') walk(record[key], visit);
}

function isIdentifier(node: unknown, name: string): boolean {
  return !!node && typeof node === 'object' && (node as AstNode).type === 'Identifier' && (node as AstNode).name === name;
}

function destructures(pattern: unknown, name: string): boolean {
  const node = pattern as AstNode;
  if (node?.type !== 'ObjectPattern') return false;
  return (node.properties as AstNode[]).some((p) => p.type === 'Property' && (isIdentifier(p.key, name) || (p.key as AstNode).value === name));
}

function memberName(node: AstNode): string | null {
  const property = node.property as AstNode;
  if (!node.computed && property.type === 'Identifier') return property.name as string;
  if (node.computed && property.type === 'Literal' && typeof property.value === 'string') return property.value;
  return null;
}

function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const visit = (rel: string) => {
    const full = path.join(root, rel);
    if (!existsSync(full)) return;
    if (statSync(full).isFile()) {
      if (SOURCE.test(rel)) files.push(rel);
      return;
    }
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      if (SKIP_DIRS.has(entry.name)) continue;
      visit(rel ? `${rel}/${entry.name}` : entry.name);
    }
  };
  for (const start of CHECKED_ROOTS) visit(start);
  return files.sort();
}

/** Checks every source file under the layered folders of `root`; returns the violations, sorted by file. */
export function checkLayers(root: string): Violation[] {
  const violations: Violation[] = [];
  for (const file of sourceFiles(root)) {
    const { edges, envReads, errors } = importsOf(root, file, readFileSync(path.join(root, file), 'utf8'));
    for (const message of errors) violations.push({ file, line: 0, message: `cannot parse: ${message}` });
    for (const edge of edges) {
      const message = ruleFor(file, edge);
      if (message) violations.push({ file, line: edge.line, message });
    }
    if (under(file, 'lib/vault')) {
      for (const line of envReads) violations.push({ file, line, message: 'lib/vault never reads process.env: its caller passes what it needs' });
    }
  }
  return violations;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(process.argv[2] ?? '.');
  const violations = checkLayers(root);
  for (const v of violations) process.stderr.write(`${v.file}:${v.line}: ${v.message}\n`);
  if (violations.length > 0) {
    process.stderr.write(`layers: ${violations.length} wrong ${violations.length === 1 ? 'arrow' : 'arrows'}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write('layers: every import goes the right way\n');
  }
}
