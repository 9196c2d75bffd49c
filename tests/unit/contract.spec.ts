import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cliInputs, InputError } from '../../cli/agent-commands';
import {
  endSession,
  endSessionInputSchema,
  endSessionResultSchema,
  INBOX_FLAGS,
  inboxFlagSchema,
  isVaultError,
  moltSkill,
  moltSkillInputSchema,
  PROPOSAL_ACTIONS,
  proposeInputSchema,
  proposeResultSchema,
  proposeToInbox,
  readNoteForAgent,
  readNoteInputSchema,
  recordDecision,
  recordDecisionInputSchema,
  renderStart,
  searchNotes,
  searchNotesInputSchema,
  SESSION_OUTCOMES,
  sessionObservationsSchema,
  startSession,
  startSessionInputSchema,
  startSessionResultSchema,
  summarizeObservations,
  validateFrontmatter,
  WRITE_MODES,
  writeNote,
  writeNoteInputSchema,
  writeNoteResultSchema,
  type StartSessionResult,
  type Vault,
} from '../../lib/vault';

const SESSION = '20261130-140112-claude-code-k3tq';
const HASH = 'a'.repeat(64);
// The operations check their input before they touch the vault: one they reach would fail on this.
const NO_VAULT = null as unknown as Vault;

/** The refusal of an operation: its code, sentence and field. */
async function refusalOf(run: () => Promise<unknown>): Promise<{ code: string; message: string; field: unknown }> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isVaultError(error)) throw new Error(`expected a VaultError, got ${String(error)}`);
  return { code: error.code, message: error.message, field: error.details?.field };
}

/** The refusal of a CLI verb's arguments: its sentence and field. */
function cliRefusalOf(run: () => unknown): { message: string; field: unknown } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { message: error.message, field: error.field };
  }
  throw new Error('expected the arguments to be refused');
}

describe('the agent contract refuses a bad input with one sentence and one field, wherever it comes from', () => {
  it('a write mode that does not exist', async () => {
    const expected = { message: 'mode must be create, replace, append or set_fields.', field: 'mode' };
    const op = await refusalOf(() => writeNote(NO_VAULT, { session: SESSION, path: 'notes/a.md', mode: 'rewrite' as 'create', content: 'x', reason: 'r' }));
    expect(op).toEqual({ code: 'invalid_input', ...expected });
    expect(cliRefusalOf(() => cliInputs.write({ session: SESSION, mode: 'rewrite', reason: 'r' }, 'notes/a.md', 'x'))).toEqual(expected);
  });

  it('a missing or blank reason', async () => {
    const expected = { message: 'reason is required.', field: 'reason' };
    const op = await refusalOf(() => proposeToInbox(NO_VAULT, { session: SESSION, target: 'notes/a.md', action: 'create', content: 'x', reason: '   ' }));
    expect(op).toEqual({ code: 'invalid_input', ...expected });
    expect(cliRefusalOf(() => cliInputs.propose({ session: SESSION, action: 'create' }, 'notes/a.md', 'x'))).toEqual(expected);
    const molt = await refusalOf(() => moltSkill(NO_VAULT, { session: SESSION, name: 'deploy', content: 'x', reason: undefined as unknown as string }));
    expect(molt).toEqual({ code: 'invalid_input', ...expected });
    expect(cliRefusalOf(() => cliInputs.molt({ session: SESSION }, 'deploy', 'x'))).toEqual(expected);
  });

  it('a confidence out of range, or not a number', async () => {
    const expected = { message: 'confidence must be between 0 and 1.', field: 'confidence' };
    for (const confidence of [1.5, -0.1, Number.NaN]) {
      const op = await refusalOf(() =>
        proposeToInbox(NO_VAULT, { session: SESSION, target: 'notes/a.md', action: 'create', content: 'x', reason: 'r', confidence }),
      );
      expect(op, String(confidence)).toEqual({ code: 'invalid_input', ...expected });
    }
    for (const confidence of ['1.5', 'sure']) {
      expect(
        cliRefusalOf(() => cliInputs.propose({ session: SESSION, action: 'create', reason: 'r', confidence }, 'notes/a.md', 'x')),
        confidence,
      ).toEqual(expected);
    }
  });

  it('an outcome that does not exist', async () => {
    const expected = { message: 'outcome must be done, partial or abandoned.', field: 'outcome' };
    const op = await refusalOf(() => endSession(NO_VAULT, { session: SESSION, summary: 'x', outcome: 'finished' as 'done' }));
    expect(op).toEqual({ code: 'invalid_input', ...expected });
    expect(cliRefusalOf(() => cliInputs.sessionEnd({ summary: 'x', outcome: 'finished' }, SESSION))).toEqual(expected);
  });

  it('what a mode needs: content, fields, expected_hash', async () => {
    const cases: { input: Record<string, unknown>; message: string; field: string }[] = [
      { input: { mode: 'create' }, message: 'content is required for mode create.', field: 'content' },
      { input: { mode: 'append', content: '  \n' }, message: 'content is required for mode append.', field: 'content' },
      { input: { mode: 'set_fields' }, message: 'fields is required for mode set_fields (e.g. {"status": "done"}).', field: 'fields' },
      {
        input: { mode: 'replace', content: '# A\n' },
        message: 'replace needs expected_hash: read_note the note first and pass the hash it returns.',
        field: 'expected_hash',
      },
      {
        input: { mode: 'replace', content: '# A\n', expected_hash: 'abc' },
        message: 'expected_hash must be the 64-character sha256 read_note returned.',
        field: 'expected_hash',
      },
    ];
    for (const { input, message, field } of cases) {
      const op = await refusalOf(() => writeNote(NO_VAULT, { session: SESSION, path: 'notes/a.md', reason: 'r', ...input } as Parameters<typeof writeNote>[1]));
      expect(op, message).toEqual({ code: 'invalid_input', message, field });
      const values = { session: SESSION, reason: 'r', mode: input.mode as string, 'expected-hash': input.expected_hash as string | undefined };
      expect(
        cliRefusalOf(() => cliInputs.write(values, 'notes/a.md', input.content as string | undefined)),
        message,
      ).toEqual({ message, field });
    }
  });

  it('front-matter properties that are not flat, or not property names', async () => {
    const nested = await refusalOf(() =>
      writeNote(NO_VAULT, { session: SESSION, path: 'notes/a.md', mode: 'set_fields', fields: { owner: { name: 'Ada' } } as never, reason: 'r' }),
    );
    expect(nested).toEqual({
      code: 'invalid_input',
      message: 'Property owner must be text, a number, true/false, a list of those, or null to remove it: front matter is flat.',
      field: 'fields',
    });
    const badKey = await refusalOf(() => writeNote(NO_VAULT, { session: SESSION, path: 'notes/a.md', mode: 'set_fields', fields: { 'a:b': 1 }, reason: 'r' }));
    expect(badKey).toEqual({ code: 'invalid_input', message: '"a:b" is not a property name.', field: 'fields' });
    expect(cliRefusalOf(() => cliInputs.write({ session: SESSION, mode: 'set_fields', field: ['a:b=1'], reason: 'r' }, 'notes/a.md', undefined))).toEqual({
      message: '"a:b" is not a property name.',
      field: 'fields',
    });
    const notAnObject = await refusalOf(() =>
      writeNote(NO_VAULT, { session: SESSION, path: 'notes/a.md', mode: 'set_fields', fields: 'status=done' as never, reason: 'r' }),
    );
    expect(notAnObject).toEqual({ code: 'invalid_input', message: 'fields must be an object of properties.', field: 'fields' });
  });

  it('required text that is missing, blank or too long, in every operation', async () => {
    const refusals = [
      [await refusalOf(() => startSession(NO_VAULT, { agent: ' ', task: 'x' })), { message: 'agent is required.', field: 'agent' }],
      [
        await refusalOf(() => startSession(NO_VAULT, { agent: 'a', task: 'x'.repeat(1001) })),
        { message: 'task is longer than 1000 characters.', field: 'task' },
      ],
      [await refusalOf(() => searchNotes(NO_VAULT, { query: '' })), { message: 'query is required.', field: 'query' }],
      [await refusalOf(() => readNoteForAgent(NO_VAULT, '')), { message: 'path is required.', field: 'path' }],
      [
        await refusalOf(() => recordDecision(NO_VAULT, { session: SESSION, project: 'atlas', title: 't', decision: 'd', rationale: '' })),
        { message: 'rationale is required.', field: 'rationale' },
      ],
      [
        await refusalOf(() => moltSkill(NO_VAULT, { session: SESSION, name: 'deploy', content: '', reason: 'r' })),
        { message: 'content is required.', field: 'content' },
      ],
      [
        await refusalOf(() => endSession(NO_VAULT, { session: 'not-a-session', summary: 'x' })),
        { message: expect.stringContaining('is not a session id'), field: 'session' },
      ],
    ] as const;
    for (const [refusal, expected] of refusals) expect(refusal).toEqual({ code: 'invalid_input', ...expected });
    expect(cliRefusalOf(() => cliInputs.sessionStart({ agent: ' ', task: 'x' }))).toEqual({ message: 'agent is required.', field: 'agent' });
    expect(cliRefusalOf(() => cliInputs.decide({ session: SESSION, project: 'atlas', title: 't', decision: 'd' }))).toEqual({
      message: 'rationale is required.',
      field: 'rationale',
    });
    expect(cliRefusalOf(() => cliInputs.molt({ session: SESSION, reason: 'r' }, 'deploy', undefined))).toEqual({
      message: 'content is required.',
      field: 'content',
    });
  });

  it('content over 1 MB is too large, not invalid', async () => {
    const content = 'x'.repeat(1_000_001);
    const op = await refusalOf(() => writeNote(NO_VAULT, { session: SESSION, path: 'notes/a.md', mode: 'create', content, reason: 'r' }));
    expect(op).toEqual({ code: 'too_large', message: 'content is larger than 1 MB; split it into several notes.', field: 'content' });
    expect(cliRefusalOf(() => cliInputs.write({ session: SESSION, mode: 'create', reason: 'r' }, 'notes/a.md', content))).toEqual({
      message: op.message,
      field: 'content',
    });
  });

  it('a proposal needs content unless it deletes', () => {
    expect(proposeInputSchema.safeParse({ session: SESSION, target: 'notes/a.md', action: 'delete', reason: 'r' }).success).toBe(true);
    const create = proposeInputSchema.safeParse({ session: SESSION, target: 'notes/a.md', action: 'create', reason: 'r' });
    expect(create.success ? null : create.error.issues[0]).toMatchObject({ message: 'content is required (the proposed text).', path: ['content'] });
  });
});

describe('the agent contract: inputs', () => {
  it('describes every input field of every tool, once, in the contract', () => {
    const inputs = [
      startSessionInputSchema,
      searchNotesInputSchema,
      readNoteInputSchema,
      writeNoteInputSchema,
      proposeInputSchema,
      recordDecisionInputSchema,
      moltSkillInputSchema,
      endSessionInputSchema,
    ];
    for (const schema of inputs) {
      const json = z.toJSONSchema(schema, { io: 'input' }) as { properties: Record<string, { description?: string }> };
      for (const [field, property] of Object.entries(json.properties)) expect(property.description, field).toBeTruthy();
    }
  });

  it('takes next steps as a list or as lines of text, and defaults the outcome to done', () => {
    const parsed = endSessionInputSchema.parse({ session: SESSION, summary: 's', next_steps: '- Ask Ada\n* Rerun CI\n\n  Ship it  ' });
    expect(parsed).toEqual({ session: SESSION, summary: 's', outcome: 'done', next_steps: ['Ask Ada', 'Rerun CI', 'Ship it'] });
    expect(endSessionInputSchema.parse(parsed)).toEqual(parsed);
  });

  it('accepts what the CLI verbs build from good arguments', () => {
    expect(
      cliInputs.write(
        { session: SESSION, mode: 'set_fields', field: ['status=draft', 'count=2', 'owner=null', 'tags=["a","b"]'], reason: 'r' },
        'notes/a.md',
        undefined,
      ),
    ).toEqual({
      session: SESSION,
      path: 'notes/a.md',
      mode: 'set_fields',
      fields: { status: 'draft', count: 2, owner: null, tags: ['a', 'b'] },
      reason: 'r',
    });
    expect(cliInputs.write({ session: SESSION, mode: 'replace', 'expected-hash': HASH, reason: 'r' }, 'notes/a.md', '# A\n')).toMatchObject({
      expected_hash: HASH,
      content: '# A\n',
    });
    expect(cliInputs.propose({ session: SESSION, action: 'delete', reason: 'r', confidence: '0.5' }, 'notes/a.md', undefined)).toMatchObject({
      content: '',
      confidence: 0.5,
    });
    expect(cliInputs.sessionEnd({ summary: 's', next: ['one', 'two'] }, SESSION)).toEqual({
      session: SESSION,
      summary: 's',
      outcome: 'done',
      next_steps: ['one', 'two'],
    });
  });
});

describe('the agent contract: literal lists and outputs', () => {
  it('holds each list once, and the session and inbox note rules use the same lists', () => {
    expect(SESSION_OUTCOMES).toEqual(['done', 'partial', 'abandoned']);
    expect(PROPOSAL_ACTIONS).toEqual(['create', 'update', 'append', 'delete']);
    expect(WRITE_MODES).toEqual(['create', 'replace', 'append', 'set_fields']);
    expect(INBOX_FLAGS).toEqual({ conflict: 'conflict', secret: 'possible-secret' });
    expect(inboxFlagSchema.options).toEqual(['conflict', 'possible-secret']);
    const session = { type: 'session', agent: 'a', task: 't', started: '2026-11-30T14:00:00+01:00', ended: '2026-11-30T15:00:00+01:00' };
    for (const outcome of SESSION_OUTCOMES) expect(validateFrontmatter('sessions/s.md', { ...session, outcome }), outcome).toEqual([]);
    expect(validateFrontmatter('sessions/s.md', { ...session, outcome: 'finished' }).map((v) => v.field)).toEqual(['outcome']);
    const inbox = { type: 'inbox', proposed_by: 'agent:a', target: 'notes/a.md', reason: 'r', created: '2026-11-30T14:00:00+01:00' };
    for (const action of PROPOSAL_ACTIONS) expect(validateFrontmatter('inbox/p.md', { ...inbox, action }), action).toEqual([]);
    expect(validateFrontmatter('inbox/p.md', { ...inbox, action: 'rename' }).map((v) => v.field)).toEqual(['action']);
  });

  it("summarizes a session's events into the observations end_session returns", () => {
    const observed = summarizeObservations([
      { kind: 'read', path: 'projects/atlas.md', at: '2026-11-30T14:00:00+01:00' },
      { kind: 'search', query: 'retries', at: '2026-11-30T14:01:00+01:00' },
      { kind: 'skill', path: 'skills/deploy.md', at: '2026-11-30T14:02:00+01:00' },
      { kind: 'inbox', path: 'inbox/p.md', at: '2026-11-30T14:03:00+01:00', edit: 'eaaaaaaaaaaaa' },
      { kind: 'write', path: 'notes/a.md', at: '2026-11-30T14:04:00+01:00', edit: 'ebbbbbbbbbbbb' },
      { kind: 'search', query: 'retries', at: '2026-11-30T14:05:00+01:00' },
    ]);
    expect(sessionObservationsSchema.parse(observed)).toEqual({
      searched: ['retries'],
      read: ['projects/atlas.md', 'skills/deploy.md'],
      touched: ['notes/a.md'],
      inbox: ['inbox/p.md'],
      skills_used: ['skills/deploy.md'],
      first_search: '2026-11-30T14:01:00+01:00',
      first_read: '2026-11-30T14:00:00+01:00',
      first_write: '2026-11-30T14:03:00+01:00',
    });
    const ended = {
      session: SESSION,
      path: `sessions/${SESSION}.md`,
      outcome: 'done',
      edit_id: 'eaaaaaaaaaaaa',
      commit: 'c'.repeat(40),
      observed,
      message: 'ended',
    };
    expect(endSessionResultSchema.safeParse(ended).success).toBe(true);
    expect(endSessionResultSchema.safeParse({ ...ended, outcome: 'finished' }).success).toBe(false);
  });

  it('refuses results whose status or flag is not in the lists', () => {
    const written = { status: 'written', path: 'notes/a.md', edit_id: 'e', commit: 'c', hash: HASH, inbox_path: null, message: 'm' };
    expect(writeNoteResultSchema.safeParse(written).success).toBe(true);
    expect(writeNoteResultSchema.safeParse({ ...written, status: 'saved' }).success).toBe(false);
    const proposed = {
      status: 'possible_secret',
      inbox_path: 'inbox/p.md',
      target: 'notes/a.md',
      action: 'create',
      flag: INBOX_FLAGS.secret,
      edit_id: 'e',
      commit: 'c',
      message: 'm',
    };
    expect(proposeResultSchema.safeParse(proposed).success).toBe(true);
    expect(proposeResultSchema.safeParse({ ...proposed, flag: 'maybe-secret' }).success).toBe(false);
    expect(proposeResultSchema.safeParse({ ...proposed, status: 'conflict' }).success).toBe(false);
  });

  it("renders start_session's result in words for the CLI and the MCP tool alike", () => {
    const result: StartSessionResult = startSessionResultSchema.parse({
      session: SESSION,
      actor: 'agent:claude-code',
      session_note: `sessions/${SESSION}.md`,
      task: 'Fix the flaky test',
      project: 'projects/atlas.md',
      read_first: [{ path: 'projects/atlas.md', title: 'Atlas', type: 'project', why: 'the project of this task' }],
      since_last_session: {
        since: null,
        previous_session: null,
        corrections: [
          {
            path: 'notes/a.md',
            exists: true,
            yours: true,
            more_changes: 2,
            changes: [
              {
                kind: 'uncommitted',
                by: 'human:Ada',
                at: '2026-11-30T09:00:00+01:00',
                reason: '',
                op: null,
                commit: null,
                status: 'modified',
                lines: ['- old line', '+ new line'],
                more_lines: 3,
              },
              {
                kind: 'edited',
                by: 'human:Ada',
                at: '2026-11-29T10:00:00+01:00',
                reason: 'Fix the date\n\nIt was May.',
                op: 'commit',
                commit: 'abcdef012345',
                status: 'modified',
              },
            ],
          },
          {
            path: 'notes/b.md',
            exists: false,
            yours: true,
            more_changes: 0,
            changes: [
              {
                kind: 'rejected',
                by: 'human:Ada',
                at: '2026-11-29T11:00:00+01:00',
                reason: 'no',
                op: 'reject',
                commit: '0123456789ab',
                proposal: { inbox_path: 'inbox/p.md', target: 'notes/b.md', action: 'create', proposed_by: 'agent:claude-code', yours: true },
              },
            ],
          },
          {
            path: 'notes/c.md',
            exists: true,
            yours: false,
            more_changes: 0,
            changes: [
              {
                kind: 'reverted',
                by: 'human:Ada',
                at: '2026-11-29T12:00:00+01:00',
                reason: 'Revert "append notes/c.md"',
                op: 'commit',
                commit: '111111111111',
                undid: {
                  edit: 'e1',
                  commit: '222222222222',
                  actor: 'agent:cursor',
                  op: 'append',
                  at: '2026-11-28T12:00:00+01:00',
                  reason: 'deploy rule',
                  paths: ['notes/c.md'],
                },
                lines: ['+ Deploy on Fridays.'],
              },
              {
                kind: 'moved',
                by: 'human:Ada',
                at: '2026-11-29T11:30:00+01:00',
                reason: 'later',
                op: 'commit',
                commit: '333333333333',
                proposal: { inbox_path: 'inbox/q.md', target: 'notes/c.md', action: 'append', proposed_by: 'agent:cursor', yours: false },
                moved_to: 'someday/q.md',
              },
            ],
          },
        ],
        more_notes: 4,
        more_commits: 0,
        imports: [
          {
            commit: '444444444444',
            by: 'human:Owner',
            at: '2026-11-01T08:00:00+01:00',
            reason: 'Initial commit',
            notes: 812,
            files: 900,
            examples: ['a.md', 'b.md'],
          },
        ],
        more_imports: 0,
      },
      notes: ['No project note matches repo "x".'],
    });
    const text = renderStart(result);
    expect(text).toContain(`Session ${SESSION} started as agent:claude-code.`);
    expect(text).toContain('1. projects/atlas.md, "Atlas" (project): the project of this task');
    const lines = text.split('\n');
    const at = (start: string) => lines.findIndex((l) => l.startsWith(start));
    // Grouped by note, in the order given (newest first), each change under its note.
    const header = at('- notes/a.md: you wrote this note');
    const onDisk = at('  - human:Ada edited it on disk; not yet committed');
    expect(header).toBeGreaterThanOrEqual(0);
    expect(onDisk).toBeGreaterThan(header);
    // Changed lines in a diff block, so a removed line never reads as a list item of the note.
    expect(lines.slice(onDisk + 1, onDisk + 5)).toEqual(['    ```diff', '    - old line', '    + new line', '    ```']);
    expect(text).toContain('    (and 3 more changed lines)');
    expect(text).toContain('  - human:Ada edited it at 2026-11-29T10:00:00+01:00 (commit abcdef012345): "Fix the date — It was May."');
    expect(text).toContain('  - and 2 earlier changes to this note.');
    expect(text).toContain('- notes/b.md: it does not exist now: do not create it unless your task asks for it.');
    expect(text).toContain(
      '  - human:Ada rejected your proposal to create it (inbox/p.md) at 2026-11-29T11:00:00+01:00 (reject, commit 0123456789ab): "no". Do not propose it again unchanged.',
    );
    expect(text).toContain(
      `  - human:Ada reverted agent:cursor's append of it (edit e1, "deploy rule") at 2026-11-29T12:00:00+01:00 (commit 111111111111): "Revert "append notes/c.md"". What the undone edit had changed (the revert took it back):`,
    );
    expect(text).toContain("  - human:Ada moved agent:cursor's proposal to append it (inbox/q.md) out of the inbox to someday/q.md");
    expect(text).toContain('- and 4 more notes people changed, not listed here');
    expect(text).toContain(
      '- human:Owner imported 812 notes (900 files) in one commit at 2026-11-01T08:00:00+01:00 (444444444444: "Initial commit"), e.g. a.md, b.md.',
    );
    expect(text.endsWith('No project note matches repo "x".')).toBe(true);
  });
});
