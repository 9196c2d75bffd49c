import { describe, expect, it } from 'vitest';
import { sessionDigest } from '../../lib/vault/agents/read-first';
import { findProject } from '../../lib/vault/agents/session-context';
import { sessionNoteParts } from '../../lib/vault/agents/session-note';
import { informativeTerms, isWeakName, overlap, wordsOf } from '../../lib/vault/agents/task-terms';
import { DEFAULT_LAYOUT } from '../../lib/vault/notes/layout';
import { buildNote } from '../../lib/vault/notes/note';
import { MB, notQuadratic } from '../support/linear-time';

const note = (path: string, text: string) => buildNote(path, Buffer.from(text), 0);
const NO_OBSERVATIONS = { searched: [], read: [], touched: [], inbox: [], skills_used: [], first_search: null, first_write: null };

describe('sessionDigest', () => {
  it('reads the summary and next steps of the note end_session writes', () => {
    const { body } = sessionNoteParts({
      agent: 'cursor',
      task: 'Add retries to the Heron importer',
      started: '2026-11-10T09:00:00+00:00',
      ended: '2026-11-10T09:30:00+00:00',
      outcome: 'partial',
      observed: { ...NO_OBSERVATIONS, touched: ['notes/importer.md'] },
      summary: 'Retries work for timeouts.\n\nThe 429 case is still open.',
      nextSteps: ['Handle 429 with Retry-After', 'Add a test for the backoff'],
    });
    expect(sessionDigest(body)).toEqual({
      summary: 'Retries work for timeouts. The 429 case is still open.',
      nextSteps: ['Handle 429 with Retry-After', 'Add a test for the backoff'],
    });
  });

  it('reads a note a person wrote: numbered or checked steps, a heading with a trailing #, code blocks skipped', () => {
    const body = [
      '# What we did',
      '',
      'Moved the cron job.',
      '```',
      '## Next steps',
      '- not a step',
      '```',
      '## Next Steps ##',
      '1. Watch the logs',
      '* [ ] Tell Ada',
      'plain text is not a step',
      '## Notes',
      '- not a step either',
    ].join('\n');
    expect(sessionDigest(body)).toEqual({ summary: 'Moved the cron job.', nextSteps: ['Watch the logs', 'Tell Ada'] });
  });

  it('keeps at most five steps and says how many more there are; a note without either gives nothing', () => {
    const steps = Array.from({ length: 8 }, (_, i) => `- step ${i + 1}`);
    const digest = sessionDigest(`# T\n\nDone.\n\n## Next steps\n\n${steps.join('\n')}\n`);
    expect(digest.nextSteps).toEqual(['step 1', 'step 2', 'step 3', 'step 4', 'step 5', 'and 3 more in the session note']);
    expect(sessionDigest('# Only a title\n')).toEqual({ summary: '', nextSteps: [] });
  });

  it('cuts a long summary to 400 characters and reads a 1 MB line of # and spaces in linear time', () => {
    expect(sessionDigest(`# T\n\n${'word '.repeat(500)}`).summary.length).toBe(400);
    // Sized so a quadratic reading takes minutes (tests/support/linear-time.ts).
    const digest = notQuadratic(() => sessionDigest(`${'# '.repeat(MB / 2)}\n${'#'.repeat(6)}${' '.repeat(MB)}x`));
    expect(digest.nextSteps).toEqual([]);
  });
});

describe('how related two tasks are', () => {
  it('does not relate tasks that share one word of three', () => {
    const task = informativeTerms('look up squats workout weight');
    expect([...task].sort()).toEqual(['squat', 'weight', 'workout']);
    expect(overlap(task, informativeTerms('log plant growth weight'))).toMatchObject({ shared: ['weight'], enough: false });
    expect(overlap(task, informativeTerms('record the squats workout weights')).enough).toBe(true);
  });

  it('relates tasks on the same subject worded differently, and ignores words that say only what to do', () => {
    const task = informativeTerms('Fix the flaky webhook tests');
    expect(overlap(task, informativeTerms('Fix the flaky invoice test'))).toMatchObject({ shared: ['flaky', 'test'], enough: true });
    expect(overlap(informativeTerms('update the squats notes'), informativeTerms('update the plant growth notes')).enough).toBe(false);
  });

  it('lets a note cover a task with half its terms, at most three', () => {
    const note = new Set(['squat', 'weight', 'kg', 'workout', 'log']);
    expect(overlap(informativeTerms('look up squats workout weight'), note).covers).toBe(true);
    expect(overlap(informativeTerms('look up squats workout weight'), new Set(['plant', 'weight'])).covers).toBe(false);
    expect(overlap(informativeTerms('explain how recurring tasks work'), new Set(['recurr', 'task'])).covers).toBe(true);
  });

  it('keeps the terms of a task made only of generic words', () => {
    expect([...informativeTerms('go ahead and fix it')].sort()).toEqual(['ahead', 'fix', 'go']);
  });
});

describe('names and words', () => {
  it('calls a one-word common name weak, and a specific or longer one not', () => {
    expect(isWeakName('Go')).toBe(true);
    expect(isWeakName('Notes')).toBe(true);
    expect(isWeakName('Heron')).toBe(false);
    expect(isWeakName('Test Project 2')).toBe(false);
  });

  it('marks the words that open a sentence', () => {
    expect(wordsOf('Go on. Then the Go build').map((w) => [w.text, w.sentenceStart])).toEqual([
      ['Go', true],
      ['on', false],
      ['Then', true],
      ['the', false],
      ['Go', false],
      ['build', false],
    ]);
  });
});

describe('findProject', () => {
  const notes = [
    note('projects/heron.md', '---\ntype: project\nname: Heron\nstatus: active\naliases: [bird-importer]\n---\n# Heron\n'),
    note('projects/go.md', '---\ntype: project\nname: Go\nstatus: active\n---\n# Go\n'),
    note('_PARA/Projects/Test Project 2/Test Project 2.md', '# Test Project 2\n\nKept in folders.\n'),
    note('_PARA/Projects/Test Project 2/Meeting.md', '# Meeting\n'),
    note('Notes/Minimal Theme.md', '---\ncategories:\n  - "[[Projects]]"\n---\n## To-do\n'),
    note('Notes/Heron sightings.md', '# Heron sightings\n'),
    note('AGENTS.md', '# Test Project 2\n'),
  ];
  const find = (input: { project?: string; repo?: string; task?: string }) => findProject(notes, input, DEFAULT_LAYOUT);

  it('finds a project the task names by name or alias, as whole words in any case, and says why', () => {
    expect(find({ task: "Add retries to heron's importer" })).toMatchObject({
      by: 'task',
      match: { note: { path: 'projects/heron.md' }, why: expect.stringMatching(/names.*heron/i) },
    });
    expect(find({ task: 'Speed up the bird-importer' }).match?.note.path).toBe('projects/heron.md');
    expect(find({ task: 'Fix the herons feeder' }).match).toBeNull();
    expect(find({ task: 'add e-ink mode to the minimal theme' }).match?.note.path).toBe('Notes/Minimal Theme.md');
  });

  it('matches a project named by a common word only with more evidence', () => {
    expect(find({ task: 'go ahead and fix the build' }).match).toBeNull();
    expect(find({ task: 'Go ahead and fix the build' }).match).toBeNull();
    expect(find({ task: 'Fix the Go build' }).match?.note.path).toBe('projects/go.md');
    expect(find({ task: 'let us go fix the go repo' }).match?.note.path).toBe('projects/go.md');
  });

  it('finds the project argument among notes without the type, by name, folder path or file path', () => {
    const nested = '_PARA/Projects/Test Project 2/Test Project 2.md';
    expect(find({ project: 'Test Project 2' })).toMatchObject({
      by: 'project',
      match: { note: { path: nested }, why: expect.stringMatching(/without type: project/) },
    });
    expect(find({ project: 'test-project-2' }).match?.note.path).toBe(nested);
    expect(find({ project: '_PARA/Projects/Test Project 2' }).match?.note.path).toBe(nested);
    expect(find({ project: `${nested.slice(0, -3)}` }).match?.note.path).toBe(nested);
    expect(find({ project: 'Meeting' }).match?.note.path).toBe('_PARA/Projects/Test Project 2/Meeting.md');
    expect(find({ project: 'heron' }).match?.why).toMatch(/matched by the name/);
    expect(find({ project: 'zeppelin' })).toEqual({ match: null, by: null, alsoNamed: [] });
  });

  it('prefers the argument, then the repo, then the task; lists another project the task names', () => {
    const both = find({ project: 'heron', task: 'port the Go build of Test Project 2' });
    expect(both.match?.note.path).toBe('projects/heron.md');
    expect(both.alsoNamed.map((m) => m.note.path)).toEqual(['_PARA/Projects/Test Project 2/Test Project 2.md', 'projects/go.md']);
  });
});
