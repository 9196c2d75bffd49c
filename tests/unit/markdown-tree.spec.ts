import { describe, expect, it } from 'vitest';
import { markdownSkeleton } from '../../lib/vault/notes/markdown-tree';

interface Node {
  type: string;
  children?: Node[];
  url?: string;
  value?: string;
}

const types = (root: Node) => (root.children ?? []).map((node) => node.type);

describe('markdownSkeleton', () => {
  it('keeps code, inline code, HTML, links and images in document order, links with their text', () => {
    const body = [
      '# Title with `code`',
      '',
      '> A quote with [a link](b.md) and ![an image](c.png)',
      '',
      '- a list item <!-- a comment -->',
      '',
      '```js',
      'const x = "[[not a link]]";',
      '```',
      '',
      '| a | [table link](d.md) |',
      '| - | - |',
      '',
      '[`code in a link`](e.md)',
    ].join('\n');
    const root = markdownSkeleton<Node>(body);
    expect(root.type).toBe('root');
    expect(types(root)).toEqual(['inlineCode', 'link', 'image', 'html', 'code', 'link', 'link']);
    expect(root.children?.map((node) => node.url).filter(Boolean)).toEqual(['b.md', 'c.png', 'd.md', 'e.md']);
    expect(root.children?.[6].children?.[0]).toMatchObject({ type: 'inlineCode', value: 'code in a link' });
  });

  it('parses a body once: the same text gives the same skeleton, another text another', () => {
    const a = '# A\n\nSee [b](b.md) and `code`.\n';
    const first = markdownSkeleton<Node>(a);
    expect(markdownSkeleton(`${a}`)).toBe(first);
    expect(markdownSkeleton(`${a} `)).not.toBe(first);
    for (let i = 0; i < 100; i += 1) markdownSkeleton(`note ${i} [x](x${i}.md)`);
    expect(markdownSkeleton(a)).toBe(first);
  });

  it('does not keep a skeleton of more than 5,000 nodes', () => {
    const big = '`c` '.repeat(5_001);
    const first = markdownSkeleton<Node>(big);
    expect(first.children).toHaveLength(5_001);
    expect(markdownSkeleton(big)).not.toBe(first);
  });
});
