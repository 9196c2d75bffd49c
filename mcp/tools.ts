import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  abandonSessions,
  describeRead,
  endSession,
  endSessionInputSchema,
  endSessionResultSchema,
  isVaultError,
  memoryProtocol,
  moltSkill,
  moltSkillInputSchema,
  moltSkillResultSchema,
  proposeInputSchema,
  proposeResultSchema,
  proposeToInbox,
  readNoteForAgent,
  readNoteInputSchema,
  readNoteResultSchema,
  readOpenSession,
  recordDecision,
  recordDecisionInputSchema,
  recordDecisionResultSchema,
  renderStart,
  searchNotes,
  searchNotesInputSchema,
  searchNotesResultSchema,
  startSession,
  startSessionInputSchema,
  startSessionResultSchema,
  VaultError,
  writeNote,
  writeNoteInputSchema,
  writeNoteResultSchema,
  type SessionOwner,
  type Vault,
} from '../lib/vault';

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

/** A tool's reply: the structured result, and the same as text for clients that only show text. */
function reply(structured: { [key: string]: unknown }, text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

function withJson(sentence: string, structured: unknown): string {
  return `${sentence}\n\n${JSON.stringify(structured, null, 2)}`;
}

/** An expected failure as a sentence a model can act on. */
function errorReply(error: VaultError): CallToolResult {
  const violations = Array.isArray(error.details?.violations) ? (error.details.violations as { field: string; message: string }[]) : [];
  const detail = violations.length > 1 ? `\n${violations.map((v) => `- ${v.field}: ${v.message}`).join('\n')}` : '';
  return { content: [{ type: 'text', text: `${error.message}${detail}` }], isError: true };
}

/**
 * The Lucid MCP server over `vault`: the memory protocol's eight tools, the protocol itself as the
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
  const running = new Set<Promise<unknown>>();
  let closing = false;
  let abandoned: Promise<string[]> | null = null;

  const stillOpen = () => {
    for (const id of [...working]) if (!readOpenSession(vault, id)) working.delete(id);
    return [...working];
  };
  const use = (session: string) => {
    if (readOpenSession(vault, session)) working.add(session);
  };

  function tool<A>(name: string, handler: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
    return (args: A) => {
      if (closing) return Promise.resolve(errorReply(new VaultError('locked', 'The Lucid server is shutting down; nothing was done.')));
      const call = (async () => {
        try {
          return await handler(args);
        } catch (error) {
          if (isVaultError(error)) return errorReply(error);
          log(`${name} failed: ${(error as Error)?.stack ?? String(error)}`);
          return errorReply(
            new VaultError(
              'io_error',
              `Lucid could not finish ${name}: ${(error as Error)?.message ?? String(error)}. Nothing was committed by this call; try again.`,
            ),
          );
        }
      })();
      running.add(call);
      void call.finally(() => running.delete(call));
      return call;
    };
  }

  server.registerTool(
    'start_session',
    {
      title: 'Start a session',
      description:
        "Call this first. Returns your session id and what to read before working: the project note, its current decisions, the last sessions on the same work, the skills whose trigger fits the task (each with why), and what people changed since your last session, grouped by note with who, when and their own words: notes they edited (committed or only saved on disk), edits they reverted, and inbox proposals they rejected, accepted by hand or moved. Follow people's corrections: they are instructions.",
      inputSchema: startSessionInputSchema,
      outputSchema: startSessionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('start_session', async (args) => {
      const result = await startSession(vault, { ...args, owner });
      owned.add(result.session);
      working.add(result.session);
      return reply({ ...result }, renderStart(result));
    }),
  );

  server.registerTool(
    'search_notes',
    {
      title: 'Search notes',
      description: 'Search the vault with a question in plain words; ranked notes with snippets (matches marked « »). Search before you assume.',
      inputSchema: searchNotesInputSchema,
      outputSchema: searchNotesResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('search_notes', async (args) => {
      const result = await searchNotes(vault, args, stillOpen());
      const sentence = result.results.length === 0 ? 'No notes match. Try other words, or fewer filters.' : `${result.results.length} notes match.`;
      return reply({ ...result }, withJson(sentence, result));
    }),
  );

  server.registerTool(
    'read_note',
    {
      title: 'Read a note',
      description:
        "Read a note by its path, file name, title, alias or [[wikilink]] (a near miss is refused with the closest notes). Returns its front matter, its body (at most 20,000 characters at a time: pass next_offset as offset for the next part, or a heading as section), its headings, its links and backlinks with titles, and the whole file's hash (pass it as expected_hash when you write it). With only part of the body, do not replace the note with it: read the rest, or use append or set_fields. Writes nothing.",
      inputSchema: readNoteInputSchema,
      outputSchema: readNoteResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('read_note', async (args) => {
      const result = await readNoteForAgent(vault, args, stillOpen());
      return reply({ ...result }, withJson(describeRead(result), result));
    }),
  );

  server.registerTool(
    'write_note',
    {
      title: 'Write a note',
      description:
        'Create or change a note; one commit and one changelog line. Modes: create (content is the whole note, front matter included), replace (the whole note; expected_hash required), append (content added at the end), set_fields (front-matter properties; null removes one). A stale expected_hash is refused as a conflict and your version goes to the inbox. Schema violations are refused with field and reason. Secrets are never committed.',
      inputSchema: writeNoteInputSchema,
      outputSchema: writeNoteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    tool('write_note', async (args) => {
      use(args.session);
      const result = await writeNote(vault, args);
      return reply({ ...result }, withJson(result.message, result), result.status !== 'written');
    }),
  );

  server.registerTool(
    'propose_to_inbox',
    {
      title: 'Propose a change to the inbox',
      description:
        'Send a change you are not sure of to the inbox, for a person to accept, edit or reject. For update, content is the whole proposed note, front matter included.',
      inputSchema: proposeInputSchema,
      outputSchema: proposeResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('propose_to_inbox', async (args) => {
      use(args.session);
      const result = await proposeToInbox(vault, args);
      return reply({ ...result }, withJson(result.message, result));
    }),
  );

  server.registerTool(
    'record_decision',
    {
      title: 'Record a decision',
      description:
        'Record what was decided and why as a decision note of a project. With replaces, the replaced decision gets status superseded and superseded_by, in the same commit.',
      inputSchema: recordDecisionInputSchema,
      outputSchema: recordDecisionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('record_decision', async (args) => {
      use(args.session);
      const result = await recordDecision(vault, args);
      return reply({ ...result }, withJson(result.message, result), result.status !== 'written');
    }),
  );

  server.registerTool(
    'molt_skill',
    {
      title: 'Create or improve a skill',
      description:
        'Keep a procedure as a skill in skills/<name>.md: a new skill starts at version 1 (trigger required); an existing one molts to version + 1. Each molt is a reviewable commit.',
      inputSchema: moltSkillInputSchema,
      outputSchema: moltSkillResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('molt_skill', async (args) => {
      use(args.session);
      const result = await moltSkill(vault, args);
      return reply({ ...result }, withJson(result.message, result), result.status !== 'written');
    }),
  );

  server.registerTool(
    'end_session',
    {
      title: 'End the session',
      description:
        'Call this when you are done. Writes the session note with your summary, the outcome, next steps and what Lucid observed: queries, notes read, notes touched, inbox proposals, skills read, and the times of the first search and first write.',
      inputSchema: endSessionInputSchema,
      outputSchema: endSessionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('end_session', async (args) => {
      const result = await endSession(vault, args);
      owned.delete(result.session);
      working.delete(result.session);
      return reply({ ...result }, withJson(result.message, result));
    }),
  );

  server.registerPrompt(
    'memory_protocol',
    { title: 'Lucid memory protocol', description: 'How to use this vault as memory: start, search, write, propose, molt, end.' },
    () => ({ description: 'The Lucid memory protocol', messages: [{ role: 'user', content: { type: 'text', text: protocol } }] }),
  );

  const abandonOpenSessions = (): Promise<string[]> => {
    abandoned ??= (async () => {
      closing = true;
      await Promise.allSettled([...running]);
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
