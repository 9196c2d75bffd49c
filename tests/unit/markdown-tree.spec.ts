import { describe, expect, it } from 'vitest';
import { markdownTree } from '../../lib/vault/notes/markdown-tree';

describe('markdownTree', () => {
  it('parses a body once for the callers that follow each other, and keeps only the last two', () => {
    const a = '# A\n\nSee [[b]] and `code`.\n';
    const b = '# B\n\n%% hidden %%\n';
    const c = '# C\n';
    const first = markdownTree<{ type: string; children: unknown[] }>(a);
    expect(first.type).toBe('root');
    expect(first.children.length).toBeGreaterThan(0);
    expect(markdownTree(`${a}`)).toBe(first);
    expect(markdownTree(b)).not.toBe(first);
    expect(markdownTree(a)).toBe(first);
    markdownTree(b);
    markdownTree(c);
    expect(markdownTree(a)).not.toBe(first);
  });

  it('does not keep the tree of a body over a million characters', () => {
    const big = `# Big\n\n${'word '.repeat(210_000)}\n`;
    expect(markdownTree(big)).not.toBe(markdownTree(big));
  });
});
