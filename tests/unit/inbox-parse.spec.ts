import { describe, expect, it } from 'vitest';
import { DEFAULT_LAYOUT } from '../../lib/vault/notes/layout';
import { fencedBlocks, parseInboxNote, parseProposalBlock } from '../../lib/vault/inbox/parse';
import { EDITED_ACCEPT_MARKER, hasConflictMarkers, isEditedAccept } from '../../lib/vault/index';
import { inboxNoteText } from '../../lib/vault/notes/note-formats';

/** The inbox note reader on literal strings: fences of every length and kind, CRLF, missing and broken blocks. */

const FRONT = `---
type: inbox
proposed_by: agent:claude-code
action: update
target: notes/handbook.md
reason: add the on-call rota
created: 2026-11-30T14:02:11+01:00
session: "[[sessions/20261130-140112-claude-code-k3tq]]"
confidence: 0.7
base_blob: 0123456789abcdef0123456789abcdef01234567
---
`;

describe('parseProposalBlock', () => {
  it('reads a four-backtick block holding a three-backtick one, and the explanation around it', () => {
    const body = 'agent:claude-code proposes to update `notes/a.md`: why\n\n````markdown\n# A\n\n```js\nrun();\n```\n````\n';
    expect(parseProposalBlock(body)).toEqual({
      explanation: 'agent:claude-code proposes to update `notes/a.md`: why',
      proposal: '# A\n\n```js\nrun();\n```\n',
      problem: null,
    });
  });

  it('reads five and seven backticks, and a shorter fence inside never closes the block', () => {
    const five = 'Why.\n\n`````markdown\n````\ninner four\n````\n`````\n';
    expect(parseProposalBlock(five).proposal).toBe('````\ninner four\n````\n');
    const seven = 'Why.\n\n```````markdown\n``````\nsix inside\n``````\n```````\n';
    expect(parseProposalBlock(seven).proposal).toBe('``````\nsix inside\n``````\n');
  });

  it('reads tilde fences, with backtick fences inside them and a longer closing fence', () => {
    const body = 'Why.\n\n~~~~markdown\n```\ncode\n```\n~~~\nstill inside\n~~~~~~\n';
    expect(parseProposalBlock(body)).toMatchObject({ proposal: '```\ncode\n```\n~~~\nstill inside\n', problem: null });
  });

  it('a backtick fence is not closed by tildes, nor by a fence line with text after it', () => {
    const body = 'Why.\n\n````markdown\n~~~~\n```` not a close\nend\n````\n';
    expect(parseProposalBlock(body).proposal).toBe('~~~~\n```` not a close\nend\n');
  });

  it('keeps CRLF line breaks inside the proposal and finds fences on CRLF lines', () => {
    const body = 'Why.\r\n\r\n````markdown\r\n# A\r\n\r\ntext\r\n````\r\n';
    expect(parseProposalBlock(body)).toEqual({ explanation: 'Why.', proposal: '# A\r\n\r\ntext\r\n', problem: null });
  });

  it('an empty block is an empty proposal', () => {
    expect(parseProposalBlock('Delete it.\n\n````markdown\n````\n')).toEqual({ explanation: 'Delete it.', proposal: '', problem: null });
  });

  it('no block at all, or one never closed, is a problem and no proposal', () => {
    expect(parseProposalBlock('Just words, ```inline``` code.\n')).toMatchObject({ proposal: null, problem: expect.stringMatching(/no fenced block/) });
    const cut = parseProposalBlock('Why.\n\n````markdown\n# A\n```\n');
    expect(cut).toMatchObject({ explanation: 'Why.', proposal: null, problem: expect.stringMatching(/never closed/) });
  });

  it('prefers the block marked markdown over an earlier block in the explanation', () => {
    const body = 'An example:\n\n```\nexample\n```\n\n````markdown\nthe proposal\n````\n';
    expect(parseProposalBlock(body).proposal).toBe('the proposal\n');
    expect(parseProposalBlock('```\nonly one\n```\n').proposal).toBe('only one\n');
  });

  it('strips the opening fence indentation from content lines; four spaces is not a fence', () => {
    expect(parseProposalBlock('  ````markdown\n  a\n    b\n  ````\n').proposal).toBe('a\n  b\n');
    expect(fencedBlocks('    ````\n    code\n    ````\n').blocks).toEqual([]);
  });

  it('a backtick fence whose info string holds a backtick is not a fence', () => {
    const { blocks } = fencedBlocks('``` a`b\n```\ntext\n```\n');
    expect(blocks.map((b) => b.content)).toEqual(['text\n']);
  });
});

describe('parseInboxNote', () => {
  it('reads every field of a note in the vault format', () => {
    const item = parseInboxNote('inbox/2026-11-30-140211-handbook.md', `${FRONT}\nWhy it matters.\n\n\`\`\`\`markdown\n# Handbook\n\`\`\`\`\n`, DEFAULT_LAYOUT);
    expect(item).toEqual({
      id: '2026-11-30-140211-handbook',
      path: 'inbox/2026-11-30-140211-handbook.md',
      proposedBy: 'agent:claude-code',
      session: '20261130-140112-claude-code-k3tq',
      action: 'update',
      target: 'notes/handbook.md',
      reason: 'add the on-call rota',
      confidence: 0.7,
      flag: null,
      created: '2026-11-30T14:02:11+01:00',
      baseBlob: '0123456789abcdef0123456789abcdef01234567',
      explanation: 'Why it matters.',
      proposal: '# Handbook\n',
      problem: null,
    });
  });

  it('round-trips what inboxNoteText writes, fences inside the content included', () => {
    const content = '---\ntype: project\nname: Atlas\nstatus: active\n---\n\n````\nfour\n````\n\n```ts\nx\n```\n';
    const text = inboxNoteText({
      proposedBy: 'agent:cursor',
      action: 'update',
      target: 'projects/atlas.md',
      reason: 'r',
      now: new Date(2026, 10, 30, 14, 2, 11),
      session: '20261130-140112-cursor-k3tq',
      explanation: 'agent:cursor proposes to update [[projects/atlas]]: r',
      content,
      flag: 'conflict',
    });
    const item = parseInboxNote('inbox/x.md', text, DEFAULT_LAYOUT);
    expect(item).toMatchObject({ proposal: content, flag: 'conflict', session: '20261130-140112-cursor-k3tq', problem: null });
    expect(item.explanation).toBe('agent:cursor proposes to update [[projects/atlas]]: r');
  });

  it('a delete needs no block, and never has a proposal', () => {
    const text = FRONT.replace('action: update', 'action: delete');
    expect(parseInboxNote('inbox/d.md', `${text}\nGone.\n`, DEFAULT_LAYOUT)).toMatchObject({ action: 'delete', proposal: null, problem: null });
    expect(parseInboxNote('inbox/d.md', `${text}\nGone.\n\n\`\`\`\`markdown\n\`\`\`\`\n`, DEFAULT_LAYOUT)).toMatchObject({ proposal: null, problem: null });
  });

  it('reads a CRLF note', () => {
    const text = `${FRONT}\nWhy.\n\n\`\`\`\`markdown\n# A\n\`\`\`\`\n`.replace(/\n/g, '\r\n');
    expect(parseInboxNote('inbox/c.md', text, DEFAULT_LAYOUT)).toMatchObject({
      proposedBy: 'agent:claude-code',
      action: 'update',
      proposal: '# A\r\n',
      problem: null,
    });
  });

  it('lists what keeps an item from being applied as its problem, never throwing', () => {
    const cases: [string, RegExp][] = [
      ['---\ntype: inbox\naction: [unclosed\n---\n', /front matter does not parse/],
      [`${FRONT.replace('action: update', 'action: rename')}\n\`\`\`\`markdown\nx\n\`\`\`\`\n`, /action "rename" is not one of/],
      [`${FRONT.replace('target: notes/handbook.md', 'target: ../outside.md')}\n\`\`\`\`markdown\nx\n\`\`\`\`\n`, /not a path inside the vault/],
      [`${FRONT.replace('target: notes/handbook.md', 'target: inbox/other.md')}\n\`\`\`\`markdown\nx\n\`\`\`\`\n`, /in the inbox itself/],
      [`${FRONT.replace('target: notes/handbook.md', 'target: changelog.md')}\n\`\`\`\`markdown\nx\n\`\`\`\`\n`, /changelog/],
      [`${FRONT}\nNo block here.\n`, /no fenced block/],
      [`${FRONT.replace('type: inbox', 'type: project')}\n\`\`\`\`markdown\nx\n\`\`\`\`\n`, /not an inbox proposal/],
      [`${FRONT.replace('proposed_by: agent:claude-code\n', '')}\n\`\`\`\`markdown\nx\n\`\`\`\`\n`, /proposed_by is missing/],
      ['# Just a note someone dropped here\n', /not an inbox proposal/],
    ];
    for (const [text, why] of cases) {
      const item = parseInboxNote('inbox/p.md', text, DEFAULT_LAYOUT);
      expect(item.problem, text).toMatch(why);
      expect(item.problem).toMatch(/cannot be accepted.*Reject it/);
      expect(item.id).toBe('p');
    }
  });

  it('ignores a session link that is not a session id, and a confidence or base_blob out of shape', () => {
    const text = FRONT.replace('[[sessions/20261130-140112-claude-code-k3tq]]', '[[notes/elsewhere]]')
      .replace('confidence: 0.7', 'confidence: 7')
      .replace('base_blob: 0123456789abcdef0123456789abcdef01234567', 'base_blob: nope');
    expect(parseInboxNote('inbox/s.md', `${text}\n\`\`\`\`markdown\nx\n\`\`\`\`\n`, DEFAULT_LAYOUT)).toMatchObject({
      session: null,
      confidence: null,
      baseBlob: null,
      problem: null,
    });
  });
});

describe('hasConflictMarkers', () => {
  it("finds git's marker lines, with or without labels, LF or CRLF", () => {
    expect(hasConflictMarkers('a\n<<<<<<< the note now\nb\n')).toBe(true);
    expect(hasConflictMarkers('a\n<<<<<<<\nb\n=======\nc\n>>>>>>>\n')).toBe(true);
    expect(hasConflictMarkers('a\r\n>>>>>>> the proposal\r\nb\r\n')).toBe(true);
    expect(hasConflictMarkers('<<<<<<< a\nx\n||||||| when proposed\ny\n=======\nz\n>>>>>>> b\n')).toBe(true);
    expect(hasConflictMarkers('>>>>>>>')).toBe(true);
  });

  it('leaves markdown alone: longer rules, quotes, arrows inside a line', () => {
    expect(hasConflictMarkers('Title\n========\n')).toBe(false);
    // A setext heading underlined with exactly seven = is a heading, not a marker.
    expect(hasConflictMarkers('Title\n=======\n\ntext\n')).toBe(false);
    expect(hasConflictMarkers('a\n||||||| x\n')).toBe(false);
    expect(hasConflictMarkers('> quoted\n>> nested\n')).toBe(false);
    expect(hasConflictMarkers('a <<<<<<< b\nx ======= y\n')).toBe(false);
    expect(hasConflictMarkers('<<<<<<<<\n')).toBe(false);
    expect(hasConflictMarkers('')).toBe(false);
  });
});

describe('isEditedAccept', () => {
  it('tells an edited accept from a plain one by the marker in its reason', () => {
    expect(isEditedAccept({ op: 'accept', reason: `2026-x from agent:a (${EDITED_ACCEPT_MARKER}): why` })).toBe(true);
    expect(isEditedAccept({ op: 'accept', reason: '2026-x from agent:a: why' })).toBe(false);
    expect(isEditedAccept({ op: 'update', reason: `(${EDITED_ACCEPT_MARKER})` })).toBe(false);
  });
});
