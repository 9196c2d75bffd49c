// The arrows of ../shared/STYLE.md §1: which layer may import which.
import type { ImportEdge } from './imports';

const FRAMEWORK = /^(next|react|react-dom|server-only|client-only|@tanstack\/react-query)(\/.*)?$/;
const VAULT_INDEX = 'lib/vault/index.ts';

export const under = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);
const isVault = (target: string | null) => target !== null && under(target, 'lib/vault');

/** The rooms of lib/vault that agents/ and inbox/ are built on; they never import those. */
const ROOMS_BELOW_AGENTS = ['lib/vault/notes', 'lib/vault/git', 'lib/vault/write', 'lib/vault/search'];
/** lib/vault's top rooms: the operations agents and people call (inbox/ may use agents/' helpers). */
const TOP_ROOMS = ['lib/vault/agents', 'lib/vault/inbox'];

/** The rules, one function per layer; returns a message for a wrong import or null. */
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
