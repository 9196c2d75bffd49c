// The house rules that a check keeps (../shared/STYLE.md §1 and §6.9): every import goes the right way between
// app/, components/, lib/, cli/ and mcp/; lib/vault never reads process.env; no source file is over 500 lines;
// no two files import each other, however far round; and no two rooms of lib/vault do either.
// Run: node --import tsx scripts/check-layers.ts [root]   (exit 1 and one line per violation on stderr)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { addArrow, describeCircle, findCircles, type Graph } from './layers/circles';
import { type ImportEdge, importsOf, sourceFiles } from './layers/imports';
import { ruleFor, under } from './layers/rules';

export interface Violation {
  file: string;
  line: number;
  message: string;
}

/** The folders whose imports follow the layer arrows. */
const LAYERED_ROOTS = ['app', 'components', 'lib', 'cli', 'mcp', 'proxy.ts'];
/** The folders held to the size limit and searched for circles: the product and its scripts, not the tests. */
const SOURCE_ROOTS = ['app', 'components', 'lib', 'cli', 'mcp', 'bin', 'scripts', 'proxy.ts'];
/** The most lines a source file may have. */
export const MAX_LINES = 500;

const lineCount = (source: string) => source.split('\n').length - (source.endsWith('\n') ? 1 : 0);

/** lib/vault's room of a file in it: its first folder, or a file of lib/vault itself by name (init.ts is `init`). */
export function roomOf(file: string): string | null {
  if (!under(file, 'lib/vault')) return null;
  const [first, ...rest] = file.slice('lib/vault/'.length).split('/');
  return rest.length === 0 ? first.replace(/\.[^.]+$/, '') : first;
}

/** Every import circle between the files of `imports` (targets outside it, packages included, are leaves). */
function fileCircles(imports: Map<string, ImportEdge[]>): Violation[] {
  const graph: Graph = new Map();
  for (const [file, edges] of imports) {
    addArrow(graph, file, file, 0);
    graph.get(file)!.delete(file);
    for (const edge of edges) if (edge.target !== null && imports.has(edge.target)) addArrow(graph, file, edge.target, edge.line);
  }
  return findCircles(graph).map((circle) => ({
    file: circle.path[0].node,
    line: circle.path[0].line,
    message: `import circle: ${describeCircle(circle)}`,
  }));
}

/** Every circle between lib/vault's rooms, each arrow shown by the first import that makes it. */
function roomCircles(imports: Map<string, ImportEdge[]>): Violation[] {
  const graph: Graph = new Map();
  const example = new Map<string, string>();
  for (const [file, edges] of imports) {
    const from = roomOf(file);
    if (from === null) continue;
    for (const edge of edges) {
      const to = edge.target === null ? null : roomOf(edge.target);
      if (to === null || to === from) continue;
      addArrow(graph, from, to, edge.line);
      const arrow = `${from}→${to}`;
      if (!example.has(arrow)) example.set(arrow, `${file}:${edge.line} imports ${edge.target}`);
    }
  }
  return findCircles(graph).map((circle) => {
    const arrows = circle.path.map((step, i) => example.get(`${step.node}→${circle.path[(i + 1) % circle.path.length].node}`)!);
    const [file, line] = arrows[0].split(' ')[0].split(':');
    return { file, line: Number(line), message: `lib/vault room circle: ${describeCircle(circle)} (${arrows.join('; ')})` };
  });
}

/** Checks every source file of `root`; returns the violations, sorted by file. */
export function checkLayers(root: string): Violation[] {
  const violations: Violation[] = [];
  const layered = new Set(sourceFiles(root, LAYERED_ROOTS));
  const imports = new Map<string, ImportEdge[]>();
  for (const file of sourceFiles(root, SOURCE_ROOTS)) {
    const source = readFileSync(path.join(root, file), 'utf8');
    const { edges, envReads, errors } = importsOf(root, file, source);
    imports.set(file, edges);
    for (const message of errors) violations.push({ file, line: 0, message: `cannot parse: ${message}` });
    const lines = lineCount(source);
    if (lines > MAX_LINES) violations.push({ file, line: 0, message: `${lines} lines: a source file has at most ${MAX_LINES}; split it along its seams` });
    if (!layered.has(file)) continue;
    for (const edge of edges) {
      const message = ruleFor(file, edge);
      if (message) violations.push({ file, line: edge.line, message });
    }
    if (under(file, 'lib/vault')) {
      for (const line of envReads) violations.push({ file, line, message: 'lib/vault never reads process.env: its caller passes what it needs' });
    }
  }
  violations.push(...fileCircles(imports), ...roomCircles(imports));
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(process.argv[2] ?? '.');
  const violations = checkLayers(root);
  for (const v of violations) process.stderr.write(`${v.file}:${v.line}: ${v.message}\n`);
  if (violations.length > 0) {
    process.stderr.write(`layers: ${violations.length} ${violations.length === 1 ? 'violation' : 'violations'}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write('layers: every import goes the right way, no file is over 500 lines, no import goes round in a circle\n');
  }
}
