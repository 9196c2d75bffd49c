import { describe, expect, it } from 'vitest';
import { type EvalQuestion, parseQuestionSet, serializeQuestionSet, splitFor } from '../../lib/vault';

const good = '{"id": "q1", "question": "Which database?", "gold": ["decisions/use-postgres.md"], "answers": ["Postgres"], "kind": "hand", "split": "test"}';

function errorOf(text: string): string {
  try {
    parseQuestionSet(text, 'evals/questions/team.jsonl');
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
}

describe('parseQuestionSet', () => {
  it('reads the format VAULT-FORMAT shows, skipping blank lines and a byte-order mark', () => {
    const text = `\uFEFF${good}\n\n{"id":"q2","question":"Who owns Atlas?","gold":["people/ada.md","projects/atlas.md"],"kind":"template","split":"dev","template":"owner","paraphrased_with":"wordnet","extra":1}\n`;
    expect(parseQuestionSet(text, 'x')).toEqual([
      { id: 'q1', question: 'Which database?', gold: ['decisions/use-postgres.md'], answers: ['Postgres'], kind: 'hand', split: 'test' },
      {
        id: 'q2',
        question: 'Who owns Atlas?',
        gold: ['people/ada.md', 'projects/atlas.md'],
        answers: [],
        kind: 'template',
        split: 'dev',
        template: 'owner',
        paraphrased_with: 'wordnet',
      },
    ]);
    expect(parseQuestionSet('', 'x')).toEqual([]);
  });

  it('names the file, the line and what is wrong', () => {
    expect(errorOf(`${good}\n{"id": "q2", "question": "x"`)).toMatch(/^evals\/questions\/team\.jsonl:2: not a JSON object/);
    expect(errorOf(`${good}\n\n{"id": "q2", "question": "x", "gold": [], "kind": "hand", "split": "test"}`)).toBe(
      'evals/questions/team.jsonl:3: gold needs at least one gold note path.',
    );
    expect(errorOf('{"id": "q2", "question": "x", "gold": ["a.md"], "kind": "hand", "split": "train"}')).toBe(
      'evals/questions/team.jsonl:1: split must be "dev" or "test".',
    );
    expect(errorOf('{"id": "q2", "gold": ["a.md"], "kind": "hand", "split": "dev"}')).toBe('evals/questions/team.jsonl:1: question is missing.');
    expect(errorOf('{"id": "q2", "question": "  ", "gold": ["a.md"], "kind": "hand", "split": "dev"}')).toBe(
      'evals/questions/team.jsonl:1: question must not be empty.',
    );
    expect(errorOf('{"id": "q2", "question": "x", "gold": ["../secret.md"], "kind": "hand", "split": "dev"}')).toBe(
      'evals/questions/team.jsonl:1: gold.0 is not a vault path (The path "../secret.md" leads outside the vault).',
    );
    expect(errorOf('["q1"]')).toMatch(/^evals\/questions\/team\.jsonl:1: /);
  });

  it('normalizes gold paths and names a Windows-style one as the bad field', () => {
    const [q] = parseQuestionSet('{"id": "q1", "question": "x", "gold": ["./decisions//a.md"], "kind": "hand", "split": "dev"}', 'x');
    expect(q.gold).toEqual(['decisions/a.md']);
    expect(errorOf('{"id": "q1", "question": "x", "gold": ["decisions\\\\a.md"], "kind": "hand", "split": "dev"}')).toMatch(
      /^evals\/questions\/team\.jsonl:1: gold\.0 is not a vault path \(Use "\/" between folders/,
    );
  });

  it('refuses an id used twice, naming both lines', () => {
    expect(errorOf(`${good}\n${good}`)).toBe('evals/questions/team.jsonl:2: the id "q1" is already used on line 1; every question needs its own id.');
  });
});

describe('serializeQuestionSet', () => {
  it('writes keys in the format order, one line each, and reads back the same', () => {
    const questions: EvalQuestion[] = [
      { split: 'dev', kind: 'template', answers: ['Ada'], gold: ['people/ada.md'], question: 'Who owns it?', id: 'q1', template: 'owner' },
      { id: 'q2', question: 'Why "this"?', gold: ['a.md'], answers: [], kind: 'hand', split: 'test' },
    ];
    const text = serializeQuestionSet(questions);
    expect(text).toBe(
      '{"id":"q1","question":"Who owns it?","gold":["people/ada.md"],"answers":["Ada"],"kind":"template","split":"dev","template":"owner"}\n' +
        '{"id":"q2","question":"Why \\"this\\"?","gold":["a.md"],"answers":[],"kind":"hand","split":"test"}\n',
    );
    expect(parseQuestionSet(text, 'x')).toEqual(questions);
  });
});

describe('splitFor', () => {
  it('is deterministic and about half and half', () => {
    const ids = Array.from({ length: 400 }, (_, i) => `q${i}`);
    expect(ids.map((id) => splitFor(id))).toEqual(ids.map((id) => splitFor(id)));
    const dev = ids.filter((id) => splitFor(id) === 'dev').length;
    expect(dev).toBeGreaterThan(160);
    expect(dev).toBeLessThan(240);
    expect(ids.map((id) => splitFor(id, 'other'))).not.toEqual(ids.map((id) => splitFor(id)));
  });
});
