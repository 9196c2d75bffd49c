import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { abandonSessions, memoryProtocol, readOpenSession, type SessionOwner, type Vault } from '../lib/vault';
import type { ToolContext } from './tools/context';
import { plainToolList } from './tools/tool-list';
import { toolCalls } from './tools/calls';
import { registerStartSession } from './tools/start-session';
import { registerSearchNotes } from './tools/search-notes';
import { registerReadNote } from './tools/read-note';
import { registerWriteNote } from './tools/write-note';
import { registerEditNote } from './tools/edit-note';
import { registerProposeToInbox } from './tools/propose-to-inbox';
import { registerRecordDecision } from './tools/record-decision';
import { registerMoltSkill } from './tools/molt-skill';
import { registerEndSession } from './tools/end-session';
import { registerMoveNote } from './tools/move-note';
import { registerDreamCandidates } from './tools/dream-candidates';

/** How to build the server: who owns its sessions, and where its logs go (never stdout). */
export interface BuildServerOptions {
  owner?: SessionOwner;
  log?: (message: string) => void;
  version?: string;
}

/** The MCP server over one vault, and its session lifecycle. */
export interface LucidMcpServer {
  server: McpServer;
  /** Sessions started through this server that have not ended. */
  openSessions(): string[];
  /**
   * Waits for running tool calls, then ends this server's open sessions with outcome abandoned
   * and what was observed. Runs once; later calls return the same promise.
   */
  abandonOpenSessions(): Promise<string[]>;
}

/** The tools, one file each in mcp/tools/, in the order the tool list shows them. */
const TOOLS: ((context: ToolContext) => void)[] = [
  registerStartSession,
  registerSearchNotes,
  registerReadNote,
  registerWriteNote,
  registerEditNote,
  registerProposeToInbox,
  registerRecordDecision,
  registerMoltSkill,
  registerEndSession,
  registerMoveNote,
  registerDreamCandidates,
];

/**
 * The Lucid MCP server over `vault`: the memory protocol's ten tools, the protocol itself as the
 * server's instructions and as the `memory_protocol` prompt. Searches and reads are recorded in
 * the sessions this server is working on; when its client goes away, the sessions it started and
 * did not end are ended as abandoned.
 */
export function buildServer(vault: Vault, options: BuildServerOptions = {}): LucidMcpServer {
  const log = options.log ?? (() => undefined);
  const owner: SessionOwner = options.owner ?? { kind: 'library' };
  const protocol = memoryProtocol(vault.layout);
  const server = new McpServer({ name: 'lucid', version: options.version ?? '0.1.0' }, { instructions: protocol });
  const owned = new Set<string>();
  const working = new Set<string>();
  const calls = toolCalls(log);
  const { tool } = calls;
  let abandoned: Promise<string[]> | null = null;

  const { register, listTools } = plainToolList(server);

  const stillOpen = () => {
    for (const id of [...working]) if (!readOpenSession(vault, id)) working.delete(id);
    return [...working];
  };
  const use = (session: string) => {
    if (readOpenSession(vault, session)) working.add(session);
  };
  const started = (session: string) => {
    owned.add(session);
    working.add(session);
  };
  const ended = (session: string) => {
    owned.delete(session);
    working.delete(session);
  };

  const context: ToolContext = { vault, owner, register, tool, stillOpen, use, started, ended };
  for (const registerTool of TOOLS) registerTool(context);

  // The plain tool list (tools/tool-list.ts) instead of the SDK's.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));

  server.registerPrompt(
    'memory_protocol',
    { title: 'Lucid memory protocol', description: 'How to use this vault as memory: start, search, write, propose, molt, end.' },
    () => ({ description: 'The Lucid memory protocol', messages: [{ role: 'user', content: { type: 'text', text: protocol } }] }),
  );

  const abandonOpenSessions = (): Promise<string[]> => {
    abandoned ??= (async () => {
      await calls.close();
      const ids = [...owned].filter((id) => readOpenSession(vault, id));
      owned.clear();
      working.clear();
      if (ids.length === 0) return [];
      const notes = await abandonSessions(vault, ids);
      log(`ended ${notes.length} open session(s) as abandoned: ${notes.join(', ')}`);
      return notes;
    })().catch((error: unknown) => {
      log(`could not end the open sessions: ${(error as Error)?.stack ?? String(error)}`);
      return [];
    });
    return abandoned;
  };
  server.server.onclose = () => {
    void abandonOpenSessions();
  };

  return { server, openSessions: () => [...owned], abandonOpenSessions };
}
