import { describe, expect, it } from 'vitest';
import { longBodySnippet } from '../../lib/vault/search/snippet';

const mark = (s: string) => s.replaceAll('\u0002', '«').replaceAll('\u0003', '»');

describe('longBodySnippet', () => {
  it('cuts about `tokens` words around the first whole-word match, a third of them before it', () => {
    const body = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
    expect(mark(longBodySnippet(body, ['nine'], 6))).toBe('…seven eight «nine» ten eleven twelve…');
  });

  it('matches a word that begins with the term less a plain ending, and not a term inside another word', () => {
    expect(mark(longBodySnippet('restart the tasking of the task list', ['tasks', 'art'], 9))).toBe('restart the «tasking» of the «task» list');
  });

  it('gives the first words when no term occurs, and never a marker then', () => {
    expect(mark(longBodySnippet('alpha beta gamma delta epsilon', ['omega'], 3))).toBe('alpha beta gamma…');
  });

  it('reads a body of a million matching words once (linear): the match is found and the rest cut', () => {
    const body = 'word '.repeat(1_000_000);
    const snippet = mark(longBodySnippet(body, ['word'], 4));
    expect(snippet).toBe('«word» «word» «word» «word»…');
  });
});
