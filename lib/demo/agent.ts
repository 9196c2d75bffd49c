import {
  abandonSessions,
  composeNote,
  endSession,
  moltSkill,
  proposeToInbox,
  readNoteForAgent,
  recordDecision,
  searchNotes,
  startSession,
  writeNote,
  type FrontmatterData,
  type Vault,
} from '../vault';
import type { DemoRun } from './run';

export type AgentSlug = 'claude-code' | 'cursor' | 'research-bot';
type ReadResult = Awaited<ReturnType<typeof readNoteForAgent>>;
type WriteInput = Omit<Parameters<typeof writeNote>[1], 'session'>;
type ProposeInput = Omit<Parameters<typeof proposeToInbox>[1], 'session'>;
type DecisionInput = Omit<Parameters<typeof recordDecision>[1], 'session'>;

/** What an agent does first in a session: the protocol's searches, then the notes it reads. */
export interface SessionPlan {
  task: string;
  project?: string;
  searched: string[];
  read: string[];
}

/** A note's whole text as an agent rebuilds it from what read_note gave it. */
export function noteText(note: ReadResult, fields: FrontmatterData = {}, body = note.body): string {
  return composeNote({ ...note.frontmatter, ...fields }, body);
}

/**
 * One agent session of the demo, driven only through the operations a real agent calls (the MCP
 * tools and CLI verbs use the same ones), so the session notes, observations and trailers are
 * the product's own. Every operation that commits moves the demo clock on by a few minutes.
 */
export class AgentSession {
  private constructor(
    private readonly run: DemoRun,
    private readonly vault: Vault,
    readonly agent: AgentSlug,
    readonly id: string,
    readonly actor: string,
    readonly task: string,
  ) {}

  /** start_session at a scheduled moment, then the plan's searches and reads. */
  static async begin(run: DemoRun, agent: AgentSlug, day: number, hour: number, minute: number, plan: SessionPlan): Promise<AgentSession> {
    run.at(day, hour, minute);
    const vault = run.vaultFor(`agent:${agent}`);
    const started = await startSession(vault, { agent, task: plan.task, project: plan.project });
    const session = new AgentSession(run, vault, agent, started.session, started.actor, started.task);
    run.step(38);
    for (const query of plan.searched) {
      await searchNotes(vault, { query }, [session.id]);
      run.step(21);
    }
    for (const path of plan.read) await session.read(path);
    run.pause(3);
    return session;
  }

  /** read_note, recorded in the session (a skill counts as used). */
  async read(path: string): Promise<ReadResult> {
    const note = await readNoteForAgent(this.vault, path, [this.id]);
    this.run.step(17);
    return note;
  }

  /** write_note; the demo's script never expects a conflict, so anything but a write is a script bug. */
  async write(input: WriteInput): Promise<{ edit_id: string; commit: string }> {
    const result = await this.attempt(input);
    if (result.status !== 'written') throw new Error(`demo script: ${input.path} was not written: ${result.message}`);
    return result;
  }

  /** write_note, which may send the write to the inbox instead (a secret, a conflict): returns what Lucid did. */
  async attempt(input: WriteInput): Promise<Awaited<ReturnType<typeof writeNote>>> {
    const result = await writeNote(this.vault, { ...input, session: this.id });
    if (result.status === 'written')
      this.committed(input.mode === 'append' ? 'append' : input.mode === 'create' ? 'create' : 'update', input.path, input.reason);
    else this.committed('create', result.inbox_path ?? input.path, input.reason);
    return result;
  }

  /** write_note, mode create, with the note's properties and body. */
  create(path: string, data: FrontmatterData, body: string, reason: string): Promise<{ edit_id: string; commit: string }> {
    return this.write({ path, mode: 'create', content: composeNote(data, body), reason });
  }

  /** write_note, mode append. */
  append(path: string, content: string, reason: string): Promise<{ edit_id: string; commit: string }> {
    return this.write({ path, mode: 'append', content, reason });
  }

  /** read_note, then write_note mode replace with the hash it read: `change` gets what was read. */
  async replace(path: string, reason: string, change: (note: ReadResult) => string): Promise<{ edit_id: string; commit: string }> {
    const note = await this.read(path);
    return this.write({ path, mode: 'replace', content: change(note), expected_hash: note.hash, reason });
  }

  /** record_decision (which supersedes `replaces` in the same commit). */
  async decide(input: DecisionInput): Promise<string> {
    const result = await recordDecision(this.vault, { ...input, session: this.id });
    if (result.status !== 'written') throw new Error(`demo script: decision ${input.title} was not recorded: ${result.message}`);
    this.committed('create', result.path, input.title);
    return result.path;
  }

  /** molt_skill on `skills/<name>.md`: creates it (version 1, with its trigger) or raises its version. */
  async molt(path: string, content: string, reason: string, trigger?: string): Promise<void> {
    const name = path.replace(/^.*\//, '').replace(/\.md$/, '');
    const result = await moltSkill(this.vault, { session: this.id, name, content, reason, trigger });
    if (result.status !== 'written' || result.path !== path) throw new Error(`demo script: skill ${path} was not molted: ${result.message}`);
    this.run.versions.set(result.path, result.version);
    this.committed('molt', result.path, reason);
  }

  /** propose_to_inbox; returns the inbox path and what became of the proposal. */
  async propose(input: ProposeInput): Promise<Awaited<ReturnType<typeof proposeToInbox>>> {
    const result = await proposeToInbox(this.vault, { ...input, session: this.id });
    this.committed('create', result.inbox_path, input.reason);
    return result;
  }

  /** end_session: Lucid writes the session note from what it observed. */
  async end(outcome: 'done' | 'partial' | 'abandoned', summary: string, nextSteps: string[] = []): Promise<void> {
    this.run.pause(3);
    const result = await endSession(this.vault, { session: this.id, outcome, summary, next_steps: nextSteps });
    this.noteEnded(result.path, result.outcome, `session ${result.outcome}`);
  }

  /** The client goes away without end_session: Lucid ends the session as abandoned. */
  async abandon(why: string): Promise<void> {
    this.run.pause(3);
    const [path] = await abandonSessions(this.vault, [this.id], why);
    if (!path) throw new Error(`demo script: session ${this.id} was not open`);
    this.noteEnded(path, 'abandoned', 'session abandoned');
  }

  private noteEnded(path: string, outcome: 'done' | 'partial' | 'abandoned', reason: string): void {
    this.run.ended.push({ id: this.id, agent: this.agent, task: this.task, outcome, ended: this.run.time().getTime(), path });
    this.committed('create', path, reason);
  }

  private committed(op: 'create' | 'update' | 'append' | 'molt', path: string, reason: string): void {
    this.run.committed({ actor: this.actor, op, path, reason, session: this.id });
  }
}
