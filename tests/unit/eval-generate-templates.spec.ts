import { describe, expect, it } from 'vitest';
import { buildNote, createLinkResolver, leakOf } from '../../lib/vault';
import { headingCandidates, linkContextCandidates, minedCandidates } from '../../lib/vault/eval/generate/mined';
import { phraseCandidate } from '../../lib/vault/eval/generate/refusal';
import { sourceFromNotes, type GenerateSource } from '../../lib/vault/eval/generate/source';
import { lastSession, owner, projectDecision, skillTrigger, supersededBy, twoHop, TYPED_TEMPLATES } from '../../lib/vault/eval/generate/templates';
import type { Thesaurus } from '../../lib/vault/eval/thesaurus';
import { TEAM } from '../support/generate-vault';

function sourceOf(files: Record<string, string>): GenerateSource {
  const notes = Object.entries(files).map(([path, text]) => buildNote(path, Buffer.from(text), 0));
  return sourceFromNotes(notes, createLinkResolver(Object.keys(files)));
}

describe('templates over typed notes', () => {
  const source = sourceOf(TEAM);

  it('what replaced decision X: gold is the superseding decision, the answer its title, found from either side once', () => {
    const [c, ...more] = supersededBy(source);
    expect(more).toEqual([]);
    expect(c.phrasings[0]).toBe('What replaced the decision "Use MySQL for the ledger"?');
    expect(c.gold).toEqual(['decisions/atlas-use-postgres.md']);
    expect(c.answers).toEqual(['Use Postgres for the ledger']);
  });

  it('what was decided for P about T: T from the body, never the title', () => {
    const c = projectDecision(source).find((q) => q.gold[0] === 'decisions/atlas-use-postgres.md');
    expect(c?.phrasings[0]).toMatch(/^What was decided for Atlas about \S+, \S+ and \S+\?$/);
    const topic = c?.phrasings[0].replace('What was decided for Atlas about ', '') ?? '';
    for (const word of ['use', 'postgres', 'ledger']) expect(topic.toLowerCase()).not.toContain(word);
    expect(topic).toMatch(/append|invoice|transaction|entries/);
    expect(c?.answers).toEqual(['Use Postgres for the ledger']);
  });

  it("who owns P: described by its summary, never named; the answer is the owner's name", () => {
    const [c] = owner(source);
    expect(c.phrasings[0]).toMatch(/^Who owns the project about .*(subscriptions|invoices|payments|webhooks)/);
    expect(c.phrasings[0]).not.toMatch(/atlas/i);
    expect(c.gold).toEqual(['projects/atlas.md']);
    expect(c.answers).toEqual(['Ada Lovelace']);
  });

  it('which session last worked on T: by `started`, for a project and for a topic two tasks share', () => {
    const candidates = lastSession(source);
    const byProject = candidates.find((c) => c.phrasings[0] === 'Which session last worked on Atlas?');
    expect(byProject?.gold).toEqual(['sessions/20261025-090000-claude-code-bbbb.md']);
    expect(byProject?.answers).toEqual(['2026-10-25']);
    const byTopic = candidates.filter((c) => c !== byProject);
    expect(byTopic).toHaveLength(1);
    expect(byTopic[0].phrasings.join(' ')).toMatch(/webhook/);
    expect(byTopic[0].gold).toEqual(['sessions/20261025-090000-claude-code-bbbb.md']);
  });

  it('which skill applies when <trigger>: the trigger in other words; archived skills never', () => {
    const candidates = skillTrigger(source);
    expect(candidates).toHaveLength(1);
    expect(candidates[0].phrasings[0]).toBe('Which skill applies when the staging TLS certificate runs out within 14 days?');
    expect(candidates[0].gold).toEqual(['skills/rotate-certificates.md']);
    expect(candidates[0].answers).toEqual(['rotate-certificates']);
  });

  it('two hops: person → project → decision, naming neither the project nor the decision', () => {
    const candidates = twoHop(source);
    expect(candidates.map((c) => c.gold[0]).sort()).toEqual(['decisions/atlas-use-mysql.md', 'decisions/atlas-use-postgres.md']);
    for (const c of candidates) {
      expect(c.phrasings[0]).toMatch(/^What did the project Ada Lovelace works on decide about /);
      expect(c.phrasings[0]).not.toMatch(/atlas|postgres|mysql/i);
    }
  });

  it('never fails on odd values: wrong types, missing links, empty bodies', () => {
    const odd = sourceOf({
      'decisions/a.md':
        '---\ntype: decision\ndate: 2026-10-01\nproject: 5\nstatus: superseded\nsuperseded_by: ["[[decisions/b]]", 3]\nreplaces: "[[nowhere]]"\n---\n',
      'decisions/b.md': '---\ntype: decision\ndate: 2026-10-01\nproject: "[[decisions/a]]"\nstatus: accepted\nreplaces: "[[decisions/b]]"\n---\n',
      'projects/p.md': '---\ntype: project\nname: [1, 2]\nstatus: active\nowner: ["[[people/x]]"]\nsummary: 7\n---\n',
      'people/x.md': '---\ntype: person\nname: X\nprojects: "[[projects/p]]"\n---\n',
      'sessions/s.md': '---\ntype: session\nagent: a\ntask: [a, b]\nstarted: 2026\nended: 2026\noutcome: done\nproject: "[[projects/p]]"\n---\n',
      'skills/k.md': '---\ntype: skill\nname: k\nversion: 1\ntrigger: 12\nlast_updated: 2026-10-01\n---\n',
    });
    for (const template of TYPED_TEMPLATES) expect(() => template(odd)).not.toThrow();
    expect(supersededBy(odd)).toEqual([]);
  });

  it('gives no typed questions for a vault without typed notes, nor from front matter that does not parse', () => {
    const plain = sourceOf({ 'a.md': '# A\n\ntext', 'broken.md': '---\ntype: decision\nproject: [[x\n---\n# Broken\n' });
    expect([...supersededBy(plain), ...projectDecision(plain), ...owner(plain), ...lastSession(plain), ...skillTrigger(plain), ...twoHop(plain)]).toEqual([]);
    expect(plain.skipped).toEqual([]);
    expect(plain.unparsed).toEqual(['broken.md']);
    expect(plain.byPath.get('broken.md')).toMatchObject({ parsed: false, type: null, frontmatter: {}, title: 'Broken' });
  });

  it('never takes a note whose front matter does not parse as the target of a typed link', () => {
    const team = sourceOf({
      ...TEAM,
      'projects/atlas.md': `---\ntype: project\nname: Atlas\nstarted: {{date}}\n---\n# Atlas\n`,
    });
    expect(team.byPath.get('projects/atlas.md')?.parsed).toBe(false);
    expect(team.linkOf('[[projects/atlas]]', 'decisions/atlas-use-postgres.md')).toBeNull();
    expect(team.resolve('projects/atlas', 'decisions/atlas-use-postgres.md')?.path).toBe('projects/atlas.md');
    for (const c of [...projectDecision(team), ...owner(team), ...twoHop(team)]) expect(c.gold).not.toContain('projects/atlas.md');
  });
});

describe('questions mined from notes without types', () => {
  const source = sourceOf({
    'Guides/Recurring Tasks.md': '# Recurring Tasks\n\nTasks can come back.\n\n## Installing the plugin\n\nOpen the settings.\n\n## Links\n',
    'Guides/Priority.md': '# Priority\n\n## Links\n\nText.\n',
    'Guides/Dates.md': '# Dates\n\n## Links\n\nText.\n',
    'Home.md':
      '# Home\n\nA task comes back on its own once you give it a rule, see [[Recurring Tasks]] for the details. Other text.\n\n- [[Priority]]\n\n| [[Dates]] | a table row with many words in it |\n',
  });

  it('asks the question form of each heading, gold the note holding it; headings many notes share are left out', () => {
    const candidates = headingCandidates(source, source.notes);
    const recurring = candidates.filter((c) => c.gold[0] === 'Guides/Recurring Tasks.md').map((c) => c.phrasings[0]);
    expect(recurring).toEqual(['What about tasks that repeat?', 'How do I install the plugin?']);
    expect(candidates.some((c) => c.phrasings[0].includes('links'))).toBe(false);
  });

  it("turns the sentence around a link into a question whose gold is the link's note, its name taken out", () => {
    const candidates = linkContextCandidates(source, source.notes);
    expect(candidates).toHaveLength(1);
    expect(candidates[0].gold).toEqual(['Guides/Recurring Tasks.md']);
    expect(candidates[0].phrasings[0]).toBe('What does this refer to: A task comes back on its own once you give it a rule, see … for the details?');
    expect(leakOf(candidates[0].phrasings[0], [{ title: 'Recurring Tasks', aliases: [] }], [])).toBeNull();
  });
});

describe('questions mined from notes whose front matter does not parse', () => {
  // An unfilled template: `{{date}}` is not YAML, yet the note has a title, headings and links.
  const source = sourceOf({
    'Daily/Template.md':
      '---\ncreated: {{date}}\ntags: [daily\n---\n# Template\n\n## Watering the greenhouse tomatoes\n\nThe vines need a stake, as [[Garden Plan]] marks for the south beds.\n',
    'Unclosed.md': '---\ncreated: {{date}}\n# Unclosed\n\n## Pruning the espalier pear\n',
    'Garden Plan.md': '# Garden Plan\n\nBeds.\n',
  });

  it('reads the body after the closing fence (the whole text when it is not closed) and asks about its headings and links', () => {
    expect(source.unparsed).toEqual(['Daily/Template.md']);
    const headings = headingCandidates(source, source.notes).map((c) => `${c.gold[0]}: ${c.phrasings[0]}`);
    expect(headings).toContain('Daily/Template.md: How do I water the greenhouse tomatoes?');
    expect(headings).toContain('Unclosed.md: How do I prune the espalier pear?');
    expect(headings.some((h) => /\{|date|created/i.test(h.split(': ')[1]))).toBe(false);
    const links = linkContextCandidates(source, source.notes);
    expect(links.map((c) => [c.gold[0], c.phrasings[0]])).toEqual([
      ['Garden Plan.md', 'What does this refer to: The vines need a stake, as … marks for the south beds?'],
    ]);
  });

  it('gives mined questions through minedCandidates, never typed ones', () => {
    const mined = minedCandidates(source);
    expect(mined.some((c) => c.gold[0] === 'Daily/Template.md' && c.template === 'heading')).toBe(true);
    for (const template of TYPED_TEMPLATES) expect(template(source)).toEqual([]);
  });
});

describe('heading questions nobody could answer are left out', () => {
  const source = sourceOf({
    'Regex.md': '# Regex\n\n## Toggle Task Done on `[\\s\\t>]*- wibble` produces `"$1- [ ] wibble"`\n\n## Anchoring a pattern at line starts\n',
    'Api.md': '# Api\n\n## `createTaskLineModal(): Promise<string>;`\n\n## Tasks 2.0.0 (22 March 2023)\n',
    'Garden.md': '# Garden\n\n## Setup\n\nBeds.\n\n## Espalier\n\nPears.\n',
    'Kitchen.md': '# Kitchen\n\n## Setup\n\nKnives.\n',
  });
  const asked = headingCandidates(source, source.notes).map((c) => `${c.gold[0]}: ${c.phrasings[0]}`);

  it('skips headings that are mostly code, numbers or punctuation, keeping the prose ones of the same note', () => {
    expect(asked).toContain('Regex.md: How do I anchor a pattern at line starts?');
    expect(asked.filter((q) => /wibble|modal|promise|2023|march/i.test(q))).toEqual([]);
  });

  it('skips a heading of one word that heads sections of other notes too, keeps a rare one', () => {
    expect(asked.some((q) => /setup/i.test(q))).toBe(false);
    expect(asked).toContain('Garden.md: What about espalier?');
  });

  it('with a thesaurus, skips a heading of one everyday word (one it has synonyms for), keeps a term it does not know', () => {
    const single = sourceOf({ 'Logic.md': '# Logic\n\n## Setup\n\nWires.\n\n## XOR\n\nGates.\n' });
    const english: Thesaurus = { name: 'wordnet', synonyms: (w) => (w === 'setup' ? ['apparatus'] : []) };
    const ask = (t: Thesaurus | null) => headingCandidates(single, single.notes, t).map((c) => c.phrasings[0]);
    expect(ask(null)).toEqual(expect.arrayContaining(['What about setup?', 'What about XOR?']));
    expect(ask(english)).toContain('What about XOR?');
    expect(ask(english)).not.toContain('What about setup?');
  });

  it('never rewords a heading that restates its title with the thesaurus: refused instead', () => {
    const projects = sourceOf({ 'Projects.md': '# Projects\n\n## Active projects\n\nText.\n' });
    const [c] = headingCandidates(projects, projects.notes);
    expect(c.reword).toBe(false);
    const table: Thesaurus = { name: 'wordnet', synonyms: (w) => (w === 'projects' ? ['undertakings'] : []) };
    expect(phraseCandidate(c, [{ title: 'Projects', aliases: [] }], table)).toEqual({ refused: 'contains the title "Projects"' });
  });
});

describe('the refusal rule on generated questions', () => {
  const gold = [{ title: 'flaky-tests', aliases: ['Unstable CI'] }];
  const candidate = {
    template: 'skill-trigger' as const,
    kind: 'template' as const,
    phrasings: ['Which skill applies when flaky tests break in CI?'],
    gold: ['skills/flaky-tests.md'],
    answers: ['flaky-tests'],
  };
  const thesaurus: Thesaurus = { name: 'wordnet', synonyms: (w) => (w === 'flaky' ? ['unreliable'] : []) };

  it('refuses a question that holds its gold title, and says why', () => {
    expect(phraseCandidate(candidate, gold, null)).toEqual({ refused: 'contains the title "flaky-tests"' });
  });

  it('rewords it with the thesaurus first, and records the thesaurus', () => {
    expect(phraseCandidate(candidate, gold, thesaurus)).toEqual({
      question: 'Which skill applies when unreliable tests break in CI?',
      paraphrasedWith: 'wordnet',
    });
  });

  it('keeps a question that does not leak, as it is, and takes the first wording that does not leak', () => {
    const fine = { ...candidate, phrasings: ['Which skill applies when a build fails now and then?'] };
    expect(phraseCandidate(fine, gold, thesaurus)).toEqual({ question: 'Which skill applies when a build fails now and then?' });
    const second = { ...candidate, phrasings: ['What about unstable CI?', 'What about a build that fails now and then?'] };
    expect(phraseCandidate(second, gold, null)).toEqual({ question: 'What about a build that fails now and then?' });
  });
});
