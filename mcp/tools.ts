import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  abandonSessions,
  endSession,
  memoryProtocol,
  moltSkill,
  proposeToInbox,
  readNoteForAgent,
  readOpenSession,
  recordDecision,
  searchNotes,
  startSession,
  isVaultError,
  VaultError,
  writeNote,
  type SessionOwner,
  type StartSessionResult,
  type Vault,
} from '../lib/vault/index';

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

const sessionField = z.string().min(1).max(100).describe('The session id start_session returned, e.g. "20261130-140112-claude-code-k3tq".');
const reasonField = z.string().min(1).max(1000).describe('Why, in one short line: it becomes the commit message and the changelog line.');

const readFirstItem = z.object({ path: z.string(), title: z.string(), type: z.string().nullable(), why: z.string() });
const startOutput = {
  session: z.string(),
  actor: z.string(),
  session_note: z.string(),
  task: z.string(),
  project: z.string().nullable(),
  read_first: z.array(readFirstItem),
  since_last_session: z.object({
    since: z.string().nullable(),
    previous_session: z.string().nullable(),
    edited: z.array(z.object({ path: z.string(), by: z.string(), op: z.string(), at: z.string(), reason: z.string(), yours: z.boolean() })),
    rejected: z.array(
      z.object({
        inbox_path: z.string(),
        target: z.string().nullable(),
        action: z.string().nullable(),
        proposed_by: z.string().nullable(),
        by: z.string(),
        at: z.string(),
        reason: z.string(),
        yours: z.boolean(),
      }),
    ),
    reverted: z.array(
      z.object({
        path: z.string(),
        by: z.string(),
        at: z.string(),
        reason: z.string(),
        reverted_edit: z.string().nullable(),
        reverted_actor: z.string().nullable(),
        yours: z.boolean(),
      }),
    ),
  }),
  notes: z.array(z.string()),
};
const searchOutput = {
  query: z.string(),
  project: z.string().nullable(),
  results: z.array(z.object({ path: z.string(), title: z.string(), type: z.string().nullable(), score: z.number(), snippet: z.string() })),
};
const readOutput = {
  path: z.string(),
  title: z.string(),
  type: z.string().nullable(),
  frontmatter: z.record(z.string(), z.unknown()),
  body: z.string(),
  hash: z.string(),
  links: z.array(z.object({ raw: z.string(), target: z.string(), resolved: z.string().nullable() })),
  backlinks: z.array(z.object({ from: z.string(), line: z.number() })),
  problem: z.string().nullable(),
  violations: z.array(z.object({ field: z.string(), message: z.string() })),
};
const writeOutput = {
  status: z.enum(['written', 'conflict', 'possible_secret']),
  path: z.string(),
  edit_id: z.string(),
  commit: z.string(),
  hash: z.string().nullable(),
  inbox_path: z.string().nullable(),
  message: z.string(),
};
const proposeOutput = {
  status: z.enum(['proposed', 'possible_secret']),
  inbox_path: z.string(),
  target: z.string(),
  action: z.string(),
  flag: z.string().nullable(),
  edit_id: z.string(),
  commit: z.string(),
  message: z.string(),
};
const decisionOutput = {
  status: z.enum(['written', 'possible_secret']),
  path: z.string(),
  superseded: z.string().nullable(),
  edit_id: z.string(),
  commit: z.string(),
  hash: z.string().nullable(),
  inbox_path: z.string().nullable(),
  message: z.string(),
};
const moltOutput = {
  status: z.enum(['written', 'conflict', 'possible_secret']),
  path: z.string(),
  name: z.string(),
  version: z.number(),
  previous_version: z.number(),
  edit_id: z.string(),
  commit: z.string(),
  hash: z.string().nullable(),
  inbox_path: z.string().nullable(),
  message: z.string(),
};
const endOutput = {
  session: z.string(),
  path: z.string(),
  outcome: z.enum(['done', 'partial', 'abandoned']),
  edit_id: z.string(),
  commit: z.string(),
  observed: z.object({
    searched: z.array(z.string()),
    read: z.array(z.string()),
    touched: z.array(z.string()),
    inbox: z.array(z.string()),
    skills_used: z.array(z.string()),
    first_search: z.string().nullable(),
    first_write: z.string().nullable(),
  }),
  message: z.string(),
};

const fieldValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.union([z.string(), z.number(), z.boolean()]))]);

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

/** start_session's reply in words: what to read first and what people changed. */
export function renderStart(result: StartSessionResult): string {
  const lines = [`Session ${result.session} started as ${result.actor}. Pass this id to every write, and call end_session when you are done (it writes ${result.session_note}).`, ''];
  if (result.read_first.length > 0) {
    lines.push('Read these first (read_note):');
    result.read_first.forEach((item, i) => lines.push(`${i + 1}. ${item.path}, "${item.title}" (${item.type ?? 'note'}): ${item.why}`));
  } else {
    lines.push('Nothing to read first matched this task.');
  }
  const since = result.since_last_session;
  lines.push('', since.since ? `Since your last session (${since.previous_session}, ended ${since.since}):` : 'People\'s changes of the last 14 days (no earlier session of yours):');
  if (since.edited.length + since.rejected.length + since.reverted.length === 0) lines.push('- nothing changed by people.');
  for (const r of since.rejected) {
    lines.push(`- ${r.by} rejected ${r.yours ? 'your' : `${r.proposed_by ?? 'a'}`} proposal to ${r.action ?? 'change'} ${r.target ?? r.inbox_path}: "${r.reason}". Do not propose it again unchanged.`);
  }
  for (const r of since.reverted) {
    lines.push(`- ${r.by} reverted ${r.yours ? 'your' : `${r.reverted_actor ?? 'an'}`} edit of ${r.path}: "${r.reason}".`);
  }
  for (const e of since.edited) {
    lines.push(`- ${e.by} edited ${e.path} (${e.op}${e.reason ? `: "${e.reason}"` : ''})${e.yours ? '; you wrote this note before, read it again: the person\'s version is the instruction' : ''}.`);
  }
  if (result.notes.length > 0) lines.push('', ...result.notes);
  return lines.join('\n');
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
          return errorReply(new VaultError('io_error', `Lucid could not finish ${name}: ${(error as Error)?.message ?? String(error)}. Nothing was committed by this call; try again.`));
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
        'Call this first. Returns your session id and what to read before working: the project note, its current decisions, the last sessions on the same work, the skills whose trigger fits the task (each with why), and what people changed since your last session: notes they edited, inbox proposals they rejected (with their reasons) and edits they reverted. Follow people\'s corrections.',
      inputSchema: {
        agent: z.string().min(1).max(100).describe('Your name as an agent, e.g. "claude-code"; you write as agent:<slug of it>.'),
        task: z.string().min(1).max(1000).describe('What you are about to do, in one sentence.'),
        project: z.string().max(300).optional().describe('The project\'s name or note path, e.g. "atlas" or "projects/atlas.md".'),
        repo: z.string().max(500).optional().describe('The code repository you work in (remote URL or path), matched against projects\' repo field.'),
      },
      outputSchema: startOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('start_session', async (args: { agent: string; task: string; project?: string; repo?: string }) => {
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
      inputSchema: {
        query: z.string().min(1).max(500).describe('A question or keywords, e.g. "why did we pick postgres".'),
        type: z.string().max(50).optional().describe('Only notes of this type: person, project, decision, session, skill, report, or a vault\'s own type.'),
        project: z.string().max(300).optional().describe('Only notes of this project (its name or note path).'),
        limit: z.number().int().min(1).max(50).optional().describe('At most this many results (default 20).'),
      },
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('search_notes', async (args: { query: string; type?: string; project?: string; limit?: number }) => {
      const result = await searchNotes(vault, args, stillOpen());
      const sentence = result.results.length === 0 ? 'No notes match. Try other words, or fewer filters.' : `${result.results.length} notes match.`;
      return reply({ ...result }, withJson(sentence, result));
    }),
  );

  server.registerTool(
    'read_note',
    {
      title: 'Read a note',
      description: 'Read a note: its front matter, body, content hash (pass it as expected_hash when you write it), outgoing links (resolved) and backlinks. Writes nothing.',
      inputSchema: { path: z.string().min(1).max(1024).describe('The note\'s path in the vault, e.g. "decisions/use-postgres.md".') },
      outputSchema: readOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('read_note', async (args: { path: string }) => {
      const result = await readNoteForAgent(vault, args.path, stillOpen());
      return reply({ ...result }, withJson(`${result.path} (hash ${result.hash}).`, result));
    }),
  );

  server.registerTool(
    'write_note',
    {
      title: 'Write a note',
      description:
        'Create or change a note; one commit and one changelog line. Modes: create (content is the whole note, front matter included), replace (the whole note; expected_hash required), append (content added at the end), set_fields (front-matter properties; null removes one). A stale expected_hash is refused as a conflict and your version goes to the inbox. Schema violations are refused with field and reason. Secrets are never committed.',
      inputSchema: {
        session: sessionField,
        path: z.string().min(1).max(1024).describe('The note\'s path in the vault, ending in .md, e.g. "projects/atlas.md".'),
        mode: z.enum(['create', 'replace', 'append', 'set_fields']).describe('create, replace, append or set_fields.'),
        content: z.string().max(1_000_000).optional().describe('The markdown: the whole note for create and replace, the text to add for append.'),
        fields: z.record(z.string(), fieldValue).optional().describe('Front-matter properties to set, e.g. {"status": "done"}; null removes one. Links as "[[folder/note]]".'),
        expected_hash: z.string().max(64).optional().describe('The hash read_note returned for the version you changed; required for replace.'),
        reason: reasonField,
      },
      outputSchema: writeOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    tool(
      'write_note',
      async (args: { session: string; path: string; mode: 'create' | 'replace' | 'append' | 'set_fields'; content?: string; fields?: Record<string, unknown>; expected_hash?: string; reason: string }) => {
        use(args.session);
        const result = await writeNote(vault, args);
        return reply({ ...result }, withJson(result.message, result), result.status !== 'written');
      },
    ),
  );

  server.registerTool(
    'propose_to_inbox',
    {
      title: 'Propose a change to the inbox',
      description:
        'Send a change you are not sure of to the inbox, for a person to accept, edit or reject. For update, content is the whole proposed note, front matter included.',
      inputSchema: {
        session: sessionField,
        target: z.string().min(1).max(1024).describe('The note the proposal is about, e.g. "projects/atlas.md".'),
        action: z.enum(['create', 'update', 'append', 'delete']).describe('create, update (whole new note), append or delete.'),
        content: z.string().max(1_000_000).describe('The proposed text (empty for delete).'),
        reason: reasonField,
        confidence: z.number().min(0).max(1).optional().describe('How sure you are, from 0 to 1.'),
      },
      outputSchema: proposeOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('propose_to_inbox', async (args: { session: string; target: string; action: 'create' | 'update' | 'append' | 'delete'; content: string; reason: string; confidence?: number }) => {
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
      inputSchema: {
        session: sessionField,
        project: z.string().min(1).max(300).describe('The project\'s name or note path, e.g. "atlas".'),
        title: z.string().min(1).max(200).describe('The decision in a few words, e.g. "Use Postgres for the ledger".'),
        decision: z.string().min(1).max(20_000).describe('What was decided (markdown).'),
        rationale: z.string().min(1).max(20_000).describe('Why: the reasons and what was weighed (markdown).'),
        replaces: z.string().max(1024).optional().describe('The decision this one replaces (its path, e.g. "decisions/atlas-use-mysql.md").'),
      },
      outputSchema: decisionOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('record_decision', async (args: { session: string; project: string; title: string; decision: string; rationale: string; replaces?: string }) => {
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
      inputSchema: {
        session: sessionField,
        name: z.string().min(1).max(100).describe('The skill\'s name in [a-z0-9-], e.g. "triage-flaky-tests".'),
        content: z.string().min(1).max(200_000).describe('The procedure in markdown, without front matter.'),
        trigger: z.string().max(500).optional().describe('When an agent should use it, e.g. "when CI fails intermittently"; required for a new skill.'),
        reason: reasonField,
      },
      outputSchema: moltOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('molt_skill', async (args: { session: string; name: string; content: string; trigger?: string; reason: string }) => {
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
      inputSchema: {
        session: sessionField,
        summary: z.string().min(1).max(20_000).describe('What you did and learned, for the next agent and for people (markdown).'),
        outcome: z.enum(['done', 'partial', 'abandoned']).optional().describe('done (default), partial or abandoned.'),
        next_steps: z.union([z.array(z.string().max(500)).max(50), z.string().max(5000)]).optional().describe('What should happen next, one step per item.'),
      },
      outputSchema: endOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('end_session', async (args: { session: string; summary: string; outcome?: 'done' | 'partial' | 'abandoned'; next_steps?: string[] | string }) => {
      const steps = typeof args.next_steps === 'string' ? args.next_steps.split('\n').map((s) => s.replace(/^\s*[-*]\s*/, '').trim()).filter(Boolean) : args.next_steps;
      const result = await endSession(vault, { ...args, next_steps: steps });
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
