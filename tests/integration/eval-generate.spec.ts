import { afterEach, describe, expect, it } from 'vitest';
import { evalGenerate } from '../../cli/eval-generate';
import type { Io } from '../../cli/shared';
import { buildCorpus, generateQuestions, initVault, leakOf, parseQuestionSet, serializeQuestionSet, splitFor, writeQuestionSet } from '../../lib/vault/index';
import { TEAM, UNTYPED } from '../support/generate-vault';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const SET = 'evals/questions/generated.jsonl';
const HAND = '{"id": "h1", "question": "Who leads billing?", "gold": ["people/ada.md"], "answers": [], "kind": "hand", "split": "test"}\n';

const made: TempVault[] = [];
afterEach(() => {
  for (const tv of made.splice(0)) tv.cleanup();
});

async function teamVault(): Promise<TempVault> {
  const tv = makeTempVault({ ...TEAM, ...UNTYPED });
  made.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  tv.write('evals/questions/hand.jsonl', HAND);
  tv.git(['add', '-A']);
  tv.git(['commit', '-qm', 'a hand-written set']);
  return tv;
}

function io(tv: TempVault): Io & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (t) => {
      out += `${t}\n`;
    },
    err: (t) => {
      err += `${t}\n`;
    },
    cwd: tv.root,
    env: tv.env,
    stdout: () => out,
    stderr: () => err,
  };
}

describe('eval generate on a vault with typed notes', () => {
  it("writes every template's questions as ONE eval commit that parses, and no question gives its answer away", async () => {
    const tv = await teamVault();
    const vault = await tv.open();
    const before = tv.commitCount();
    const generated = await generateQuestions(vault, { thesaurus: null });
    const result = await writeQuestionSet(vault, 'generated', generated.questions, vault.person);

    expect(tv.commitCount()).toBe(before + 1);
    expect(result?.commit).toBe(tv.head());
    expect(tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort()).toEqual(['changelog.md', SET]);
    expect(tv.git(['log', '-1', '--format=%B'])).toMatch(/Lucid-Op: eval\n/);

    const questions = parseQuestionSet(tv.read(SET), SET);
    expect(questions).toEqual(generated.questions);
    for (const template of ['superseded-by', 'project-decision', 'owner', 'last-session', 'skill-trigger', 'two-hop', 'heading', 'link-context']) {
      expect(generated.byTemplate[template], template).toBeGreaterThan(0);
    }
    const owner = questions.find((q) => q.template === 'owner');
    expect(owner).toMatchObject({ gold: ['projects/atlas.md'], answers: ['Ada Lovelace'], kind: 'template' });
    expect(questions.find((q) => q.template === 'heading' && q.question === 'How do I install the plugin?')).toMatchObject({
      gold: ['Guides/Recurring Tasks.md'],
      kind: 'mined',
    });

    const corpus = await buildCorpus(vault);
    for (const q of questions) {
      expect(q.split).toBe(splitFor(q.id));
      const gold = q.gold.map((p) => corpus.byPath.get(p));
      expect(gold.every(Boolean), q.id).toBe(true);
      expect(
        leakOf(
          q.question,
          gold.filter((n) => n !== undefined),
          q.answers,
        ),
        q.question,
      ).toBeNull();
    }
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(generated.skipped).toEqual([]);
    expect(generated.unparsed).toEqual(['notes/broken.md']);
    expect(tv.read('evals/questions/hand.jsonl')).toBe(HAND);
    vault.close();
  });

  it('gives the same set byte for byte from the same vault, and rewrites nothing when nothing changed', async () => {
    const first = await teamVault();
    const second = await teamVault();
    const a = await first.open();
    const b = await second.open();
    const setA = await generateQuestions(a);
    const setB = await generateQuestions(b);
    expect(serializeQuestionSet(setB.questions)).toBe(serializeQuestionSet(setA.questions));
    expect(serializeQuestionSet((await generateQuestions(a)).questions)).toBe(serializeQuestionSet(setA.questions));

    await writeQuestionSet(a, 'generated', setA.questions, a.person);
    const head = first.head();
    expect(await writeQuestionSet(a, 'generated', (await generateQuestions(a)).questions, a.person)).toBeNull();
    expect(first.head()).toBe(head);
    a.close();
    b.close();
  });

  it("replaces a set of the same name as one edit, saving a person's uncommitted version first", async () => {
    const tv = await teamVault();
    const vault = await tv.open();
    const one = await generateQuestions(vault, { max: 3 });
    await writeQuestionSet(vault, 'generated', one.questions, vault.person);
    expect(parseQuestionSet(tv.read(SET), SET)).toHaveLength(3);
    expect(new Set(one.questions.map((q) => q.template)).size).toBe(3);

    const all = await generateQuestions(vault);
    const before = tv.commitCount();
    await writeQuestionSet(vault, 'generated', all.questions, vault.person);
    expect(tv.commitCount()).toBe(before + 1);
    expect(parseQuestionSet(tv.read(SET), SET)).toEqual(all.questions);

    // Questions that would not read back are refused before anything is written.
    const head = tv.head();
    await expect(writeQuestionSet(vault, 'generated', [one.questions[0], one.questions[0]], vault.person)).rejects.toThrow(
      `${SET}:2: the id "${one.questions[0].id}" is already used on line 1`,
    );
    expect(tv.head()).toBe(head);

    // A person's uncommitted edit of the set is committed as theirs first, never lost.
    tv.write(SET, HAND);
    const saved = await writeQuestionSet(vault, 'generated', one.questions, vault.person);
    expect(saved?.savedPersonCommit).toBe(tv.git(['rev-parse', 'HEAD~1']).trim());
    expect(tv.git(['show', `${saved?.savedPersonCommit}:${SET}`])).toBe(HAND);
    expect(parseQuestionSet(tv.read(SET), SET)).toEqual(one.questions);
    vault.close();
  });
});

describe('lucid eval generate', () => {
  it('prints the counts per template, the split and what to do next, and commits once', async () => {
    const tv = await teamVault();
    const before = tv.commitCount();
    const out = io(tv);
    expect(await evalGenerate(out, { vault: tv.root })).toBe(0);
    expect(out.stdout()).toMatch(/^\d+ questions: \d+ superseded-by, \d+ project-decision, /);
    expect(out.stdout()).toMatch(/Split: \d+ dev, \d+ test\./);
    expect(out.stdout()).toContain(`Wrote ${SET}`);
    expect(out.stdout()).toContain('1 note with front matter that does not parse: asked about from headings and links only');
    expect(out.stdout()).toContain(`Next: lucid eval run --vault ${tv.root} --set generated`);
    expect(tv.commitCount()).toBe(before + 1);

    const again = io(tv);
    expect(await evalGenerate(again, { vault: tv.root, json: true })).toBe(0);
    const report = JSON.parse(again.stdout());
    expect(report).toMatchObject({ set: 'generated', path: SET, commit: null, unchanged: true });
    expect(report.byTemplate.owner).toBe(1);
    expect(Array.isArray(report.refused)).toBe(true);
    expect(tv.commitCount()).toBe(before + 1);
  });

  it('writes to another set by name and refuses bad flags with a usage error', async () => {
    const tv = await teamVault();
    expect(await evalGenerate(io(tv), { vault: tv.root, set: 'mine', max: '5' })).toBe(0);
    expect(parseQuestionSet(tv.read('evals/questions/mine.jsonl'), 'mine').length).toBeLessThanOrEqual(5);
    await expect(evalGenerate(io(tv), { vault: tv.root, max: 'lots' })).rejects.toThrow('--max must be a whole number');
    await expect(evalGenerate(io(tv), { vault: tv.root, set: '../escape' })).rejects.toThrow('is not a question set name');
    await expect(evalGenerate(io(tv), { vault: tv.root, k: '5' })).rejects.toThrow('eval generate does not take --k');
    await expect(evalGenerate(io(tv), { vault: tv.root }, ['extra'])).rejects.toThrow('eval generate takes no arguments');
  });

  it('says what to do when a vault gives no question, and writes nothing', async () => {
    const tv = makeTempVault({ 'a.md': 'just text\n' });
    made.push(tv);
    const head = tv.head();
    const out = io(tv);
    expect(await evalGenerate(out, { vault: tv.root })).toBe(1);
    expect(out.stderr()).toContain('no questions could be made from this vault');
    expect(out.stderr()).toContain('evals/questions/generated.jsonl');
    expect(tv.head()).toBe(head);
  });
});
