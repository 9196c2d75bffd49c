// What the layer check reads: every source file of the checked folders and every import in each.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';

/** One import as the checker sees it: where it points and whether only types cross. */
export interface ImportEdge {
  specifier: string;
  /** Repo-relative path of the file it resolves to (posix), or null for a package. */
  target: string | null;
  typeOnly: boolean;
  line: number;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', '.next', '.git', '.lucid-demo', '.lucid', '.ci-out', 'test-results', 'playwright-report', 'bench-out']);

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

/** A source file: a script by its extension, or an extensionless node script in bin/ (bin/lucid). */
function isSource(root: string, rel: string): boolean {
  if (SOURCE.test(rel)) return true;
  if (!rel.startsWith('bin/') || path.basename(rel).includes('.')) return false;
  return readFileSync(path.join(root, rel), 'utf8').startsWith('#!/usr/bin/env node');
}

/** Every source file under `roots` (folders or files, repo-relative), sorted. */
export function sourceFiles(root: string, roots: readonly string[]): string[] {
  const files: string[] = [];
  const visit = (rel: string) => {
    const full = path.join(root, rel);
    if (!existsSync(full)) return;
    if (statSync(full).isFile()) {
      if (isSource(root, rel)) files.push(rel);
      return;
    }
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      if (SKIP_DIRS.has(entry.name)) continue;
      visit(rel ? `${rel}/${entry.name}` : entry.name);
    }
  };
  for (const start of roots) visit(start);
  return files.sort();
}
