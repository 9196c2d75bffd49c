import { describe, expect, it } from 'vitest';
import { summaryOfBody } from '../../lib/vault/index';

describe('summaryOfBody', () => {
  it('takes the text under the title and the next steps of a session note', () => {
    const body =
      '# Fix the flaky test\n\nRan it 20 times.\nIt was the clock.\n\n## Changed\n\n- [[notes/a]]\n\n## Next steps\n\n- pin the clock\n* tell Grace\n\n## Later\n\n- not a step\n';
    expect(summaryOfBody(body)).toEqual({ summary: 'Ran it 20 times.\nIt was the clock.', nextSteps: ['pin the clock', 'tell Grace'] });
  });

  it('copes with no title, no sections and Windows line ends', () => {
    expect(summaryOfBody('Just a line.\r\n')).toEqual({ summary: 'Just a line.', nextSteps: [] });
    expect(summaryOfBody('# Title only\n')).toEqual({ summary: '', nextSteps: [] });
  });
});
