import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult, ListToolsRequestSchema, type Tool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  abandonSessions,
  dreamCandidatesForAgent,
  dreamCandidatesInputSchema,
  dreamCandidatesResultSchema,
  editNote,
  editNoteInputSchema,
  endSession,
  endSessionInputSchema,
  endSessionResultSchema,
  isVaultError,
  memoryProtocol,
  moltSkill,
  moltSkillInputSchema,
  moltSkillResultSchema,
  moveNote,
  moveNoteInputSchema,
  moveNoteResultSchema,
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

/**
 * A tool's reply: the structured result, and the same result once more as compact JSON text, as the
 * MCP spec asks for clients that ignore structuredContent. A model reads one of the two, so the text
 * adds no summary sentence and no indentation: what a model should act on (a write's `message`)
 * is a field of the result.
 */
function reply(structured: { [key: string]: unknown }, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

const isBareType = (schema: unknown): schema is { type: string } =>
  typeof schema === 'object' && schema !== null && Object.keys(schema).length === 1 && typeof (schema as { type?: unknown }).type === 'string';

/**
 * A schema as zod writes it for the SDK (draft-07), written plainly for the tool list a model
 * reads: no `$schema` line, `"type": ["string", "null"]` for a nullable field instead of an
 * `anyOf` of two schemas, no safe-integer bounds on every integer, and no
 * `additionalProperties: false`, which zod adds to every result object although the contract's
 * objects let more keys through (so a client that validates with the list accepts what the
 * server's own check accepts). Otherwise the same constraints.
 */
function plainSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plainSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || (key === 'additionalProperties' && value === false)) continue;
    if ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)) continue;
    out[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, plainSchema(property)]))
        : plainSchema(value);
  }
  const options: unknown[] = Array.isArray(out.anyOf) ? out.anyOf : [];
  const [first, second] = options;
  if (options.length === 2 && out.type === undefined && isBareType(first) && isBareType(second) && second.type === 'null') {
    delete out.anyOf;
    out.type = [first.type, 'null'];
  }
  return out;
}

/** An expected failure as a sentence a model can act on. */
function errorReply(error: VaultError): CallToolResult {
  const violations = Array.isArray(error.details?.violations) ? (error.details.violations as { field: string; message: string }[]) : [];
  const detail = violations.length > 1 ? `\n${violations.map((v) => `- ${v.field}: ${v.message}`).join('\n')}` : '';
  return { content: [{ type: 'text', text: `${error.message}${detail}` }], isError: true };
}

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
  const running = new Set<Promise<unknown>>();
  let closing = false;
  let abandoned: Promise<string[]> | null = null;

  const listed = new Map<string, { title?: string; description?: string; input: z.ZodType; output: z.ZodType; annotations?: ToolAnnotations }>();
  const register: McpServer['registerTool'] = (name, config, cb) => {
    listed.set(name, {
      title: config.title,
      description: config.description,
      input: config.inputSchema as unknown as z.ZodType,
      output: config.outputSchema as unknown as z.ZodType,
      annotations: config.annotations,
    });
    return server.registerTool(name, config, cb);
  };
  let toolList: Tool[] | null = null;
  const listTools = (): Tool[] =>
    (toolList ??= [...listed].map(([name, t]) => ({
      name,
      title: t.title,
      description: t.description,
      inputSchema: plainSchema(z.toJSONSchema(t.input, { target: 'draft-7', io: 'input' })) as Tool['inputSchema'],
      outputSchema: plainSchema(z.toJSONSchema(t.output, { target: 'draft-7', io: 'output' })) as Tool['outputSchema'],
      annotations: t.annotations,
    })));

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

  register(
    'start_session',
    {
      title: 'Start a session',
      description:
        "Call this first. Returns your session id, what to read first (the project, its decisions, recent sessions with the newest's next steps, fitting skills, the notes search ranks best; each with why) and what people changed since your last session, per note, in their own words. People's corrections are instructions: follow them.",
      inputSchema: startSessionInputSchema,
      outputSchema: startSessionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('start_session', async (args) => {
      const result = await startSession(vault, { ...args, owner });
      owned.add(result.session);
      working.add(result.session);
      return reply({ ...result });
    }),
  );

  register(
    'search_notes',
    {
      title: 'Search notes',
      description: 'Search the vault with a question in plain words: ranked notes with snippets (matches marked « »). Search before you assume.',
      inputSchema: searchNotesInputSchema,
      outputSchema: searchNotesResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('search_notes', async (args) => {
      const result = await searchNotes(vault, args, stillOpen());
      return reply({ ...result });
    }),
  );

  register(
    'read_note',
    {
      title: 'Read a note',
      description:
        "Read a note by path, file name, title, alias or [[wikilink]] (a miss names the closest notes). Returns front matter, body (20,000 characters at a time: pass next_offset as offset, or a heading as section), headings, links and backlinks with titles, and the whole file's hash for expected_hash. Never replace a note with a part you read.",
      inputSchema: readNoteInputSchema,
      outputSchema: readNoteResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('read_note', async (args) => {
      const result = await readNoteForAgent(vault, args, stillOpen());
      return reply({ ...result });
    }),
  );

  register(
    'write_note',
    {
      title: 'Write a note',
      description:
        'Create a note, or change it whole, in one commit; for a small change use edit_note. create refuses a path that exists. A stale expected_hash is a conflict: your version goes to the inbox. Invalid front matter is refused with why; a secret goes to the inbox, masked. To delete a note, propose_to_inbox with action delete.',
      inputSchema: writeNoteInputSchema,
      outputSchema: writeNoteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    tool('write_note', async (args) => {
      use(args.session);
      const result = await writeNote(vault, args);
      return reply({ ...result }, result.status !== 'written');
    }),
  );

  register(
    'edit_note',
    {
      title: 'Edit part of a note',
      description:
        'Change part of a note in one commit, every other byte kept: find_replace (literal, expected count), replace_section, insert before or after a heading, prepend, append. Prefer it to rewriting a note. A stale expected_hash sends your edit to the inbox. To delete a note, propose_to_inbox with action delete.',
      inputSchema: editNoteInputSchema,
      outputSchema: writeNoteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    tool('edit_note', async (args) => {
      use(args.session);
      const result = await editNote(vault, args);
      return reply({ ...result }, result.status !== 'written');
    }),
  );

  register(
    'propose_to_inbox',
    {
      title: 'Propose a change to the inbox',
      description:
        'Send a change you are not sure of to the inbox, for a person to accept, edit or reject. Deleting a note goes through here too (action delete).',
      inputSchema: proposeInputSchema,
      outputSchema: proposeResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('propose_to_inbox', async (args) => {
      use(args.session);
      const result = await proposeToInbox(vault, args);
      return reply({ ...result });
    }),
  );

  register(
    'record_decision',
    {
      title: 'Record a decision',
      description: "Record a project's decision and why, as a decision note. With replaces, the old decision is marked superseded in the same commit.",
      inputSchema: recordDecisionInputSchema,
      outputSchema: recordDecisionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('record_decision', async (args) => {
      use(args.session);
      const result = await recordDecision(vault, args);
      return reply({ ...result }, result.status !== 'written');
    }),
  );

  register(
    'molt_skill',
    {
      title: 'Create or improve a skill',
      description: `Keep a procedure as a skill (${vault.layout.skills}/<name>.md): a new one starts at version 1 and needs a trigger; an existing one goes to version + 1. Each change is a reviewable commit.`,
      inputSchema: moltSkillInputSchema,
      outputSchema: moltSkillResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('molt_skill', async (args) => {
      use(args.session);
      const result = await moltSkill(vault, args);
      return reply({ ...result }, result.status !== 'written');
    }),
  );

  register(
    'end_session',
    {
      title: 'End the session',
      description:
        'Call this when you are done. Writes your session note: your summary, the outcome, next steps and what Lucid observed (searches, notes read and written, proposals, skills read).',
      inputSchema: endSessionInputSchema,
      outputSchema: endSessionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('end_session', async (args) => {
      const result = await endSession(vault, args);
      owned.delete(result.session);
      working.delete(result.session);
      return reply({ ...result });
    }),
  );

  register(
    'move_note',
    {
      title: 'Move or rename a note',
      description:
        'Move or rename a note in one commit, rewriting every link that reached it (wikilinks, embeds, markdown and front-matter links) so each link still leads where it did; the changelog, a log, keeps its links as written. Refused, nothing changed, if to exists or a linking note cannot be rewritten. To delete, propose_to_inbox with action delete.',
      inputSchema: moveNoteInputSchema,
      outputSchema: moveNoteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    tool('move_note', async (args) => {
      use(args.session);
      const result = await moveNote(vault, args);
      return reply({ ...result });
    }),
  );

  register(
    'dream_candidates',
    {
      title: 'Find duplicate and stale skills',
      description:
        "The dream pass's findings, changing nothing: skill pairs that look like the same procedure (score, evidence), skills unused for long, inconsistent fields. Merge a pair by molting the first with both procedures' steps.",
      inputSchema: dreamCandidatesInputSchema,
      outputSchema: dreamCandidatesResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('dream_candidates', async (args) => reply({ ...(await dreamCandidatesForAgent(vault, args)) })),
  );

  // The SDK lists the same tools with their schemas as zod writes them; the plain form reads the same to a
  // client and costs a model's context less (plainSchema).
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));

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
