import { describe, expect, it } from 'vitest';
import {
  baseVerb,
  cleanHeading,
  headingQuestions,
  isCodeHeading,
  plainer,
  proseShare,
  rephraseWith,
  triggerClause,
} from '../../lib/vault/eval/generate/phrasing';
import { plainText } from '../../lib/vault/eval/plain-text';
import { distinctiveTerms, joinList, stemsOf } from '../../lib/vault/eval/generate/words';
import { leakOf } from '../../lib/vault';
import type { Thesaurus } from '../../lib/vault/eval/thesaurus';

const thesaurus = (table: Record<string, string[]>): Thesaurus => ({ name: 'test-thesaurus', synonyms: (word) => table[word] ?? [] });

describe('headings that are code, numbers or punctuation more than words', () => {
  it('are code headings: inline code, regular expressions, calls, version numbers', () => {
    expect(isCodeHeading('Toggle Task Done on `[\\s\\t>]*- wibble` produces `"$1- [ ] wibble"`')).toBe(true);
    expect(isCodeHeading('`createTaskLineModal(): Promise<string>;`')).toBe(true);
    expect(isCodeHeading('group by function task.file.path.toUpperCase()')).toBe(true);
    expect(isCodeHeading('due (before|on|in||after) absolute date: results unchanged')).toBe(true);
    expect(isCodeHeading('Tasks 2.0.0 (22 March 2023)')).toBe(true);
    expect(isCodeHeading('`id`')).toBe(false);
    expect(proseShare('`id`')).toBe(1);
  });

  it('are not: words, a code span of one name, a dotted product name, a link', () => {
    for (const heading of ['Installing the plugin', 'Use a `project` property', 'Node.js setup', 'Notes on [[Garden Plan]]', 'Why is my score 1.95?', 'Q&A']) {
      expect(isCodeHeading(heading), heading).toBe(false);
    }
  });
});

describe('the question form of a heading', () => {
  it('asks how to do what a heading in -ing describes', () => {
    expect(headingQuestions('Installing the plugin')[0]).toBe('How do I install the plugin?');
    expect(headingQuestions('Getting started')[0]).toBe('How do I get started?');
    expect(headingQuestions('How to filter by date')[0]).toBe('How do I filter by date?');
    expect(headingQuestions('Install the plugin')[0]).toBe('How do I install the plugin?');
    expect(headingQuestions('Setting and changing a status')[0]).toBe('How do I set and change a status?');
  });

  it('turns "<-ing word> <noun>" into a relative clause in plainer words', () => {
    expect(headingQuestions('Recurring tasks')[0]).toBe('What about tasks that repeat?');
    expect(headingQuestions('Recurring Tasks')[0]).toBe('What about tasks that repeat?');
    expect(headingQuestions('Onboarding checklist 🚀')).toEqual(['What about onboarding checklist?', 'What do my notes say about onboarding checklist?']);
  });

  it('keeps a heading that already asks, and asks about a noun phrase', () => {
    expect(headingQuestions('Why is my query empty?')[0]).toBe('Why is my query empty?');
    expect(headingQuestions('How Tos')[0]).toBe('What about how tos?');
    expect(headingQuestions('Date format')[0]).toBe('What about date layout?');
    expect(headingQuestions('Date format')).toContain('What about date format?');
    expect(headingQuestions('About status collections')[0]).toBe('What about status collections?');
  });

  it('keeps names and acronyms as written and drops numbering and marks', () => {
    expect(cleanHeading('2. **Using** the [[API|CLI]] ##')).toBe('Using the CLI');
    expect(headingQuestions('2. Using the CLI')[0]).toBe('How do I use the CLI?');
    expect(headingQuestions('🚀 Deploying to AWS')[0]).toBe('How do I deploy to AWS?');
  });

  it('has nothing to ask about a heading of stopwords or symbols', () => {
    expect(headingQuestions('---')).toEqual([]);
    expect(headingQuestions('And then')).toEqual([]);
    expect(headingQuestions('<% tp.file.title %>')).toEqual([]);
    expect(headingQuestions('Styling of queries')[0]).toBe('What about styling of searches?');
    expect(headingQuestions('task_properties_reference')[0]).toBe('What about task properties reference?');
    expect(headingQuestions('Heading with a link')[0]).toBe('What about heading with a link?');
    expect(headingQuestions('Pending')).toEqual(['What about pending?', 'What do my notes say about pending?']);
  });

  it('finds the base form of -ing verbs', () => {
    const cases: Record<string, string> = {
      installing: 'install',
      making: 'make',
      running: 'run',
      using: 'use',
      creating: 'create',
      configuring: 'configure',
      reading: 'read',
      filtering: 'filter',
      setting: 'set',
      changing: 'change',
      bringing: 'bring',
      writing: 'write',
      editing: 'edit',
      handling: 'handle',
      managing: 'manage',
      removing: 'remove',
      starting: 'start',
      travelling: 'travel',
      parsing: 'parse',
      renaming: 'rename',
      showing: 'show',
      rendering: 'render',
      rewriting: 'rewrite',
      ignoring: 'ignore',
      increasing: 'increase',
      releasing: 'release',
    };
    for (const [ing, base] of Object.entries(cases)) expect(baseVerb(ing), ing).toBe(base);
  });
});

describe('plain words and skill triggers', () => {
  it('replaces everyday words with plainer ones, leaving names alone', () => {
    expect(plainer('the certificate expires')).toBe('the certificate runs out');
    expect(plainer('Delete the Error log')).toBe('Delete the Error log');
  });

  it('reads a trigger as the clause after "when"', () => {
    expect(triggerClause('When the staging TLS certificate expires within 14 days.')).toBe('the staging TLS certificate expires within 14 days');
    expect(triggerClause('Use when a CI job fails')).toBe('a CI job fails');
    expect(triggerClause('Beacon reindexing')).toBe('beacon reindexing');
  });
});

describe('words of a note', () => {
  it('reads a body as plain words: links as the text they show, code and comments out', () => {
    expect(plainText('See [[projects/delta|the pipeline]] and [[people/ada]] `code` %%hidden%% <!-- c --> [docs](a.md)').replace(/\s+/g, ' ').trim()).toBe(
      'See the pipeline and ada docs',
    );
  });

  it('picks the words a text is most about, rare in the vault, outside the excluded stems, in text order', () => {
    const df = new Map([
      ['ledger', 1],
      ['invoice', 1],
      ['postgres', 5],
      ['table', 4],
      ['writes', 6],
    ]);
    const terms = distinctiveTerms('The ledger is a table; every invoice writes to the ledger. Postgres table.', { df, total: 10 }, stemsOf(['Postgres']), 2);
    expect(terms).toEqual(['ledger', 'invoice']);
    expect(joinList(['a', 'b', 'c'])).toBe('a, b and c');
  });
});

describe('rewording with a thesaurus before refusing', () => {
  const gold = [{ title: 'Flaky tests', aliases: [] }];
  const leaks = (q: string) => leakOf(q, gold, []);

  it('replaces a word of the leaking title with a synonym that is not itself a word of it', () => {
    const t = thesaurus({ flaky: ['tests', 'unreliable'] });
    expect(rephraseWith(t, 'Which skill applies when flaky tests fail?', ['Flaky tests'], leaks)).toBe('Which skill applies when unreliable tests fail?');
  });

  it('gives up (null) when no synonym helps', () => {
    expect(rephraseWith(thesaurus({}), 'Which skill applies when flaky tests fail?', ['Flaky tests'], leaks)).toBeNull();
  });

  it('returns null for a question that does not leak (nothing to reword)', () => {
    expect(rephraseWith(thesaurus({ flaky: ['unreliable'] }), 'Which skill applies when CI breaks?', ['Flaky tests'], leaks)).toBeNull();
  });
});
