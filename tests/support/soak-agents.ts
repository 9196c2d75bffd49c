import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import path from 'node:path';
import type { Ledger } from './soak-ledger';

// An agent of the soak: a real MCP SDK client over stdio to `lucid mcp --vault`, appending uniquely
// tagged lines to a shared note and its own, and proposing new notes so the inbox never runs dry.

type Structured = Record<string, unknown>;

/** How many of an agent's proposals wait in the inbox before it stops proposing for a while. */
const KEEP_PENDING = 4;

export class SoakAgent {
  private client = new Client({ name: 'lucid-soak', version: '0.0.0' });
  private session = '';
  private stopped = false;
  private writes = 0;
  private proposals = 0;
  readonly ownNote: string;
  errors = 0;

  constructor(
    readonly name: string,
    private readonly vaultRoot: string,
    private readonly sharedNote: string,
    private readonly ledger: Ledger,
    private readonly lucidBin: string,
  ) {
    this.ownNote = `Notes/${name}.md`;
  }

  private async call(tool: string, args: Structured): Promise<Structured> {
    const result = await this.client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 });
    if (result.isError) {
      const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join(' ');
      throw new Error(`${tool}: ${text}`);
    }
    return result.structuredContent as Structured;
  }

  /** Connects, starts a session, and makes its own note (and the shared one when asked). */
  async start(createShared: boolean): Promise<void> {
    await this.client.connect(
      new StdioClientTransport({ command: process.execPath, args: [this.lucidBin, 'mcp', '--vault', this.vaultRoot], stderr: 'ignore' }),
    );
    const started = await this.call('start_session', { agent: this.name, task: 'soak: keep writing while a person reviews' });
    this.session = started.session as string;
    const make = async (note: string, title: string) => {
      await this.call('write_note', {
        session: this.session,
        path: note,
        mode: 'create',
        content: `# ${title}\n\nLines the soak's agents append.\n`,
        reason: 'soak: a note to append to',
      });
    };
    await make(this.ownNote, `Soak ${this.name}`);
    if (createShared) await make(this.sharedNote, 'Soak shared');
  }

  /** Writes until stopped: one append at a time, alternating shared and own notes, proposing when the queue runs low. */
  async run(): Promise<void> {
    while (!this.stopped) {
      await this.appendOnce();
      if (this.stopped) break;
      if (this.ledger.pendingOf(this.name) < KEEP_PENDING) await this.proposeOnce();
    }
  }

  private async appendOnce(): Promise<void> {
    this.writes += 1;
    const note = this.writes % 2 === 0 ? this.sharedNote : this.ownNote;
    const tag = `[soak ${this.name} w${String(this.writes).padStart(5, '0')}]`;
    try {
      const r = await this.call('write_note', {
        session: this.session,
        path: note,
        mode: 'append',
        content: `- ${tag}\n`,
        reason: `soak write ${this.writes}`,
      });
      this.ledger.add({
        kind: 'write',
        agent: this.name,
        path: note,
        tag,
        status: r.status as string,
        editId: (r.edit_id as string) || null,
        commit: (r.commit as string) || null,
      });
    } catch (error) {
      this.errors += 1;
      this.ledger.add({ kind: 'write', agent: this.name, path: note, tag, status: 'error', editId: null, commit: null, error: (error as Error).message });
    }
  }

  private async proposeOnce(): Promise<void> {
    this.proposals += 1;
    const n = String(this.proposals).padStart(4, '0');
    const target = `Notes/${this.name}-proposal-${n}.md`;
    const tag = `[soak ${this.name} p${n}]`;
    try {
      const r = await this.call('propose_to_inbox', {
        session: this.session,
        target,
        action: 'create',
        content: `# Proposal ${n} from ${this.name}\n\n- ${tag}\n`,
        reason: `soak proposal ${n}`,
        confidence: 0.5,
      });
      const inboxPath = r.inbox_path as string;
      this.ledger.add({ kind: 'propose', agent: this.name, id: path.basename(inboxPath, '.md'), inboxPath, target, tag, editId: r.edit_id as string });
    } catch (error) {
      this.errors += 1;
      console.error(`${this.name}: propose_to_inbox failed: ${(error as Error).message}`);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}
