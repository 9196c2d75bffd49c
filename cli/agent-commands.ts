import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import type { z } from 'zod';
import {
  endSession,
  endSessionInputSchema,
  inputProblem,
  listOpenSessions,
  moltSkill,
  moltSkillInputSchema,
  moveNote,
  moveNoteInputSchema,
  proposeInputSchema,
  proposeToInbox,
  recordDecision,
  recordDecisionInputSchema,
  PROPOSAL_ACTIONS,
  renderStart,
  upgradeInstall,
  SESSION_OUTCOMES,
  startSession,
  startSessionInputSchema,
  writeNote,
  writeNoteInputSchema,
  WRITE_MODES,
  type SessionOwner,
} from '../lib/vault';
import { indexWorkers } from './index-workers';
import { PACKAGE_ROOT } from './serve';
import { fallbackUser, openCliVault, printJson, shellQuote, UsageError, vaultDir, type Io } from './shared';
import { SYNC_EVERY_HELP, syncEveryOf, syncEveryOption } from './sync-every';

export type Values = Record<string, string | boolean | string[] | undefined>;

export const vaultOption = { vault: { type: 'string' as const, short: 'v' } };
export const jsonOption = { json: { type: 'boolean' as const } };
export const sessionOption = { session: { type: 'string' as const, short: 's' } };
export const reasonOption = { reason: { type: 'string' as const, short: 'r' } };
export const contentOptions = { content: { type: 'string' as const, short: 'c' }, file: { type: 'string' as const, short: 'f' } };

/** The clients `lucid mcp --print-config` knows. */
const MCP_CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode'] as const;
type McpClient = (typeof MCP_CLIENTS)[number];

const OWNER: SessionOwner = { kind: 'cli', pid: process.pid };

/** An argument the agent contract refuses: its sentence, the one the operation and the MCP tool give, and its field. */
export class InputError extends UsageError {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    const flag = field === undefined ? undefined : FLAG_OF[field];
    super(message, flag ? `give it with ${flag}` : undefined);
  }
}

/** The flag each field of the contract is given with on the command line. */
const FLAG_OF: Record<string, string> = {
  agent: '--agent',
  task: '--task',
  project: '--project',
  repo: '--repo',
  summary: '--summary',
  outcome: '--outcome',
  next_steps: '--next',
  session: '--session',
  mode: '--mode',
  content: '--content TEXT or --file PATH',
  fields: '--field KEY=VALUE',
  expected_hash: '--expected-hash',
  reason: '--reason',
  action: '--action',
  confidence: '--confidence',
  title: '--title',
  decision: '--decision',
  rationale: '--rationale',
  replaces: '--replaces',
  trigger: '--trigger',
  operation: '--operation',
  find: '--find',
  replace: '--replace',
  expected_replacements: '--expected-replacements',
  heading: '--heading',
};

/** Checks a verb's arguments against the agent contract before the vault is opened. */
export function check<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problem = inputProblem(parsed.error);
  throw new InputError(problem.message, problem.field);
}

export function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function list(values: Values, name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return strictUtf8(Buffer.concat(chunks), 'standard input');
}

/** The bytes as text, refused when they are not UTF-8: a silent U+FFFD would replace the person's letters for good. */
function strictUtf8(bytes: Buffer, source: string): string {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return decoder.decode(bytes);
  } catch {
    // A line feed is never part of a multi-byte character, so the first line that fails to decode holds the bad byte.
    let line = 1;
    let start = 0;
    for (let at = bytes.indexOf(10); ; at = bytes.indexOf(10, start)) {
      const end = at === -1 ? bytes.length : at;
      try {
        decoder.decode(bytes.subarray(start, end));
      } catch {
        break;
      }
      if (at === -1) break;
      line += 1;
      start = at + 1;
    }
    throw new UsageError(
      `${source} is not valid UTF-8 (line ${line}); nothing was written. Save it as UTF-8 first, e.g. iconv -f latin1 -t utf-8 ${source === 'standard input' ? 'FILE' : source}.`,
    );
  }
}

/** `--content TEXT`, or `--file PATH` (`-` reads stdin); undefined when neither is given. */
export async function content(io: Io, values: Values): Promise<string | undefined> {
  const given = optional(values, 'content');
  const file = optional(values, 'file');
  if (given !== undefined && file !== undefined) throw new UsageError('give --content or --file, not both');
  if (file === '-') return readStdin();
  if (file !== undefined) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(nodePath.resolve(io.cwd, file));
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    return strictUtf8(bytes, file);
  }
  return typeof values.content === 'string' ? values.content : undefined;
}

/** `--field key=value`: the value as JSON when it parses (numbers, true, null, lists), else as text. */
function parseFields(pairs: string[]): Record<string, unknown> | undefined {
  if (pairs.length === 0) return undefined;
  const fields: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--field needs key=value, not "${pair}"`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    if (/^(-?\d+(\.\d+)?|true|false|null|\[.*\])$/s.test(raw.trim())) {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw;
      }
    }
    fields[pair.slice(0, at).trim()] = value;
  }
  return fields;
}

/**
 * The verbs' arguments as the agent contract's inputs, checked by it: a refused argument throws an
 * InputError with the contract's sentence and field.
 */
export const cliInputs = {
  sessionStart: (values: Values) =>
    check(startSessionInputSchema, {
      agent: optional(values, 'agent'),
      task: optional(values, 'task'),
      project: optional(values, 'project'),
      repo: optional(values, 'repo'),
    }),
  sessionEnd: (values: Values, session: string) =>
    check(endSessionInputSchema, { session, summary: optional(values, 'summary'), outcome: optional(values, 'outcome'), next_steps: list(values, 'next') }),
  write: (values: Values, path: string, text: string | undefined) =>
    check(writeNoteInputSchema, {
      session: optional(values, 'session'),
      path,
      mode: optional(values, 'mode'),
      content: text,
      fields: parseFields(list(values, 'field')),
      expected_hash: optional(values, 'expected-hash'),
      reason: optional(values, 'reason'),
    }),
  propose: (values: Values, target: string, text: string | undefined) => {
    const confidence = optional(values, 'confidence');
    return check(proposeInputSchema, {
      session: optional(values, 'session'),
      target,
      action: optional(values, 'action'),
      content: text,
      reason: optional(values, 'reason'),
      confidence: confidence === undefined ? undefined : Number(confidence),
    });
  },
  decide: (values: Values) =>
    check(recordDecisionInputSchema, {
      session: optional(values, 'session'),
      project: optional(values, 'project'),
      title: optional(values, 'title'),
      decision: optional(values, 'decision'),
      rationale: optional(values, 'rationale'),
      replaces: optional(values, 'replaces'),
    }),
  molt: (values: Values, name: string, text: string | undefined) =>
    check(moltSkillInputSchema, {
      session: optional(values, 'session'),
      name,
      content: text,
      trigger: optional(values, 'trigger'),
      reason: optional(values, 'reason'),
    }),
  move: (values: Values, from: string, to: string) =>
    check(moveNoteInputSchema, { session: optional(values, 'session'), from, to, reason: optional(values, 'reason') }),
};

/** Prints a write's result; a write routed to the inbox (conflict, secret) exits 1 with its message. */
export function finish(io: Io, values: Values, result: { status: string; message: string }): number {
  const ok = result.status === 'written' || result.status === 'proposed';
  if (values.json) printJson(io, result);
  else if (ok) io.out(result.message);
  if (!ok) io.err(`lucid: ${result.message}`);
  return ok ? 0 : 1;
}

/** The configuration a client needs to start `lucid mcp` on this vault, with absolute paths. */
function mcpClientConfig(client: McpClient, vaultRoot: string, nodePath_ = process.execPath): { config: unknown; hint: string } {
  const bin = nodePath.join(PACKAGE_ROOT, 'bin', 'lucid');
  const args = [bin, 'mcp', '--vault', vaultRoot];
  const server = { command: nodePath_, args };
  switch (client) {
    case 'claude-code':
      return {
        config: { mcpServers: { lucid: { type: 'stdio', ...server, env: {} } } },
        hint: `Save this as .mcp.json at the root of your code repository, or run:\n  claude mcp add lucid -- ${[nodePath_, ...args].map(shellQuote).join(' ')}`,
      };
    case 'claude-desktop':
      return {
        config: { mcpServers: { lucid: server } },
        hint: 'Merge this into claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\), then restart Claude Desktop.',
      };
    case 'cursor':
      return {
        config: { mcpServers: { lucid: server } },
        hint: 'Save this as .cursor/mcp.json in your project (or merge it into ~/.cursor/mcp.json for every project).',
      };
    case 'vscode':
      return {
        config: { servers: { lucid: { type: 'stdio', ...server } } },
        hint: 'Save this as .vscode/mcp.json in your workspace (or add it with the "MCP: Add Server" command).',
      };
  }
}

/** The memory protocol's commands: the MCP server, and the same operations as CLI verbs. */
export const agentCommands = {
  mcp: {
    summary: 'Run the MCP server for agents on stdio (or print a client configuration)',
    usage:
      `lucid mcp [--vault DIR] [--sync-every I]\nlucid mcp --print-config ${MCP_CLIENTS.join('|')} [--vault DIR]\n\n` +
      '  Serves the memory protocol (start_session, search_notes, read_note, write_note, propose_to_inbox,\n' +
      '  record_decision, molt_skill, end_session) over stdio; logs go to stderr. When the client goes\n' +
      '  away without end_session, its open sessions are ended as abandoned.\n' +
      '  --print-config  prints ready configuration (absolute paths) for the client on stdout, and where\n' +
      '                  to put it on stderr.\n' +
      SYNC_EVERY_HELP,
    options: { ...vaultOption, 'print-config': { type: 'string' as const }, ...syncEveryOption },
    async run(io: Io, values: Values) {
      const client = optional(values, 'print-config');
      if (client !== undefined) {
        if (!(MCP_CLIENTS as readonly string[]).includes(client)) throw new UsageError(`--print-config takes ${MCP_CLIENTS.join(', ')}; not "${client}"`);
        const vault = await openCliVault(io, values.vault as string | undefined);
        const root = vault.root;
        vault.close();
        const { config, hint } = mcpClientConfig(client as McpClient, root);
        printJson(io, config);
        io.err(hint);
        return 0;
      }
      const syncEvery = syncEveryOf(values);
      const { runStdioServer } = await import('../mcp/server');
      await runStdioServer({
        syncEvery,
        vaultRoot: vaultDir(io, values.vault as string | undefined),
        env: io.env,
        fallbackUser: fallbackUser(io.env),
        indexWorkers: indexWorkers(),
      });
      return 0;
    },
  },
  session: {
    summary: 'Start, end or list agent sessions (what start_session and end_session do)',
    usage:
      'lucid session start --agent NAME --task TEXT [--project P] [--repo R] [--vault DIR] [--json]\n' +
      `lucid session end SESSION --summary TEXT [--outcome ${SESSION_OUTCOMES.join('|')}] [--next STEP]... [--vault DIR] [--json]\n` +
      'lucid session list [--vault DIR] [--json]',
    options: {
      ...vaultOption,
      ...jsonOption,
      agent: { type: 'string' as const },
      task: { type: 'string' as const },
      project: { type: 'string' as const },
      repo: { type: 'string' as const },
      summary: { type: 'string' as const },
      outcome: { type: 'string' as const },
      next: { type: 'string' as const, multiple: true },
    },
    async run(io: Io, values: Values, positionals: string[]) {
      const [action, ...rest] = positionals;
      if (action !== 'start' && action !== 'end' && action !== 'list')
        throw new UsageError('session takes start, end or list, e.g. lucid session start --agent claude-code --task "…"');
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        if (action === 'list') {
          const open = listOpenSessions(vault).map((s) => ({ session: s.id, agent: s.actor, task: s.task, started: s.started, owner: s.owner }));
          if (values.json) printJson(io, open);
          else if (open.length === 0) io.out('No open sessions.');
          else for (const s of open) io.out(`${s.session}  ${s.agent}  ${s.task}`);
          return 0;
        }
        if (action === 'start') {
          await upgradeInstall(vault).catch((error: Error) => io.err(`lucid: could not upgrade the install (${error.message}); going on.`));
          const result = await startSession(vault, { ...cliInputs.sessionStart(values), owner: OWNER });
          if (values.json) printJson(io, result);
          else io.out(renderStart(result));
          return 0;
        }
        if (rest.length !== 1) throw new UsageError('session end needs the session id, e.g. lucid session end 20261130-140112-claude-code-k3tq --summary "…"');
        const result = await endSession(vault, cliInputs.sessionEnd(values, rest[0]));
        if (values.json) printJson(io, result);
        else io.out(result.message);
        return 0;
      } finally {
        vault.close();
      }
    },
  },
  write: {
    summary: `Write a note as an agent session (${WRITE_MODES.join(', ')})`,
    usage:
      `lucid write PATH --session ID --mode ${WRITE_MODES.join('|')} (--content TEXT | --file F|-) [--field KEY=VALUE]... [--expected-hash H] --reason TEXT [--vault DIR] [--json]\n\n` +
      '  One commit and one changelog line. A stale --expected-hash, or content that looks like a secret,\n' +
      '  sends the version to the inbox instead (exit 1, the inbox path on stderr).',
    options: {
      ...vaultOption,
      ...jsonOption,
      ...sessionOption,
      ...reasonOption,
      ...contentOptions,
      mode: { type: 'string' as const, short: 'm' },
      field: { type: 'string' as const, multiple: true },
      'expected-hash': { type: 'string' as const },
    },
    async run(io: Io, values: Values, positionals: string[]) {
      if (positionals.length !== 1)
        throw new UsageError('write needs one note path, e.g. lucid write projects/atlas.md --session … --mode append --content "…" --reason "…"');
      const input = cliInputs.write(values, positionals[0], await content(io, values));
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const result = await writeNote(vault, input);
        return finish(io, values, result);
      } finally {
        vault.close();
      }
    },
  },
  propose: {
    summary: 'Send a proposed change to the inbox, for a person to accept or reject',
    usage: `lucid propose TARGET --session ID --action ${PROPOSAL_ACTIONS.join('|')} (--content TEXT | --file F|-) --reason TEXT [--confidence 0..1] [--vault DIR] [--json]`,
    options: {
      ...vaultOption,
      ...jsonOption,
      ...sessionOption,
      ...reasonOption,
      ...contentOptions,
      action: { type: 'string' as const, short: 'a' },
      confidence: { type: 'string' as const },
    },
    async run(io: Io, values: Values, positionals: string[]) {
      if (positionals.length !== 1) throw new UsageError('propose needs one target path, e.g. lucid propose projects/atlas.md --action update …');
      const input = cliInputs.propose(values, positionals[0], await content(io, values));
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const result = await proposeToInbox(vault, input);
        if (values.json) printJson(io, result);
        else io.out(result.message);
        return 0;
      } finally {
        vault.close();
      }
    },
  },
  decide: {
    summary: 'Record a decision of a project (and supersede the one it replaces)',
    usage: 'lucid decide --session ID --project P --title TEXT --decision TEXT --rationale TEXT [--replaces PATH] [--vault DIR] [--json]',
    options: {
      ...vaultOption,
      ...jsonOption,
      ...sessionOption,
      project: { type: 'string' as const },
      title: { type: 'string' as const },
      decision: { type: 'string' as const },
      rationale: { type: 'string' as const },
      replaces: { type: 'string' as const },
    },
    async run(io: Io, values: Values) {
      const input = cliInputs.decide(values);
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const result = await recordDecision(vault, input);
        return finish(io, values, result);
      } finally {
        vault.close();
      }
    },
  },
  molt: {
    summary: 'Create a skill (version 1) or molt it (version + 1), as one reviewable commit',
    usage: 'lucid molt NAME --session ID (--content TEXT | --file F|-) [--trigger TEXT] --reason TEXT [--vault DIR] [--json]',
    options: { ...vaultOption, ...jsonOption, ...sessionOption, ...reasonOption, ...contentOptions, trigger: { type: 'string' as const, short: 't' } },
    async run(io: Io, values: Values, positionals: string[]) {
      if (positionals.length !== 1)
        throw new UsageError('molt needs the skill name, e.g. lucid molt triage-flaky-tests --session … --file skill.md --reason "…"');
      const input = cliInputs.molt(values, positionals[0], await content(io, values));
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const result = await moltSkill(vault, input);
        return finish(io, values, result);
      } finally {
        vault.close();
      }
    },
  },
  move: {
    summary: 'Move or rename a note, rewriting every link to it, in one commit',
    usage:
      'lucid move FROM TO --session ID --reason TEXT [--vault DIR] [--json]\n\n' +
      '  What move_note does: the note goes to TO (which must not exist) and every link in the vault that\n' +
      '  reached it, or that its new name would take over, is rewritten to lead where it did. Refused,\n' +
      '  with nothing changed, when a linking note cannot be parsed or rewritten (each is named).',
    options: { ...vaultOption, ...jsonOption, ...sessionOption, ...reasonOption },
    async run(io: Io, values: Values, positionals: string[]) {
      if (positionals.length !== 2)
        throw new UsageError('move needs the note and its new path, e.g. lucid move notes/atlas.md projects/atlas.md --session … --reason "…"');
      const input = cliInputs.move(values, positionals[0], positionals[1]);
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const result = await moveNote(vault, input);
        if (values.json) printJson(io, result);
        else io.out(result.message);
        return 0;
      } finally {
        vault.close();
      }
    },
  },
};
