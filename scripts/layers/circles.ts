// Import circles, found as the strongly connected components of a directed graph (Tarjan's algorithm):
// every component of more than one node, or a node that imports itself, is one circle to report.
// Type-only imports count: they vanish at run time, but a circle of types is still two modules that
// cannot be understood, moved or tested apart, which is what the rule is for.

/** A directed graph: each node's list of the nodes it imports, with the line of each import. */
export type Graph = Map<string, Map<string, number>>;

/** One circle: its nodes in import order, each with the line that imports the next, and the rest of its tangle. */
export interface Circle {
  path: { node: string; line: number }[];
  /** The other nodes of the same strongly connected component, not on `path`. */
  others: string[];
}

/** Adds the arrow from → to (keeping the first line seen). */
export function addArrow(graph: Graph, from: string, to: string, line: number): void {
  let out = graph.get(from);
  if (!out) graph.set(from, (out = new Map()));
  if (!out.has(to)) out.set(to, line);
  if (!graph.has(to)) graph.set(to, new Map());
}

/** The strongly connected components of `graph`, each sorted, in a stable order. */
function components(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The shortest circle from the component's first node back to it, through the component only. */
function shortestCircle(graph: Graph, component: string[]): string[] {
  const inside = new Set(component);
  const start = component[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const nodes = [node];
        while (nodes[0] !== start) nodes.unshift(previous.get(nodes[0])!);
        return nodes;
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

/** Every circle of `graph`: one per strongly connected component that is one (a self-import included). */
export function findCircles(graph: Graph): Circle[] {
  const circles: Circle[] = [];
  for (const component of components(graph)) {
    const only = component[0];
    if (component.length === 1 && !graph.get(only)?.has(only)) continue;
    const nodes = shortestCircle(graph, component);
    const path = nodes.map((node, i) => ({ node, line: graph.get(node)!.get(nodes[(i + 1) % nodes.length])! }));
    circles.push({ path, others: component.filter((node) => !nodes.includes(node)) });
  }
  return circles;
}

/** `a → b → a`, the circle closed on its first node. */
export function describeCircle(circle: Circle, name: (node: string) => string = (node) => node): string {
  const names = [...circle.path.map((step) => name(step.node)), name(circle.path[0].node)];
  const others = circle.others.length > 0 ? `; tangled with it: ${circle.others.map(name).join(', ')}` : '';
  return `${names.join(' → ')}${others}`;
}
