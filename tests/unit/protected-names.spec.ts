import { describe, expect, it } from 'vitest';
import { DEFAULT_LAYOUT, layoutSchema } from '../../lib/vault/notes/layout';
import { VaultError } from '../../lib/vault/errors';
import { assertProtectedPath, assertSkillPlacement, assertWritableText, isUnderFolded } from '../../lib/vault/notes/protected';

const AGENT = 'agent:claude-code';
const PERSON = 'human:Ada';
const RENAMED = layoutSchema.parse({ changelog: 'Lucid Changelog.md', changelogArchive: 'lucid-changelog', skills: 'Agent Skills', agents: 'MEMORY.md' });

function refusal(run: () => unknown): VaultError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected a refusal');
}

describe('assertProtectedPath', () => {
  it.each([['changelog.md'], ['CHANGELOG.md'], ['Changelog.md'], ['changelog/2026-10.md'], ['CHANGELOG/2026-10.MD']])(
    'refuses %j, the changelog on macOS and Windows, to everyone',
    (path) => {
      for (const actor of [AGENT, PERSON]) expect(refusal(() => assertProtectedPath(DEFAULT_LAYOUT, actor, 'update', path)).code).toBe('forbidden');
    },
  );

  it('follows the layout lucid.json gives', () => {
    expect(refusal(() => assertProtectedPath(RENAMED, PERSON, 'create', 'LUCID CHANGELOG.md')).message).toContain('Lucid Changelog.md');
    expect(() => assertProtectedPath(RENAMED, PERSON, 'create', 'changelog.md')).not.toThrow();
    expect(refusal(() => assertProtectedPath(RENAMED, AGENT, 'update', 'memory.md')).message).toMatch(/MEMORY\.md.*inbox/);
    expect(refusal(() => assertProtectedPath(RENAMED, AGENT, 'create', 'agent skills/x.md')).message).toContain('molt_skill');
    expect(() => assertProtectedPath(RENAMED, AGENT, 'create', 'skills/x.md')).not.toThrow();
  });

  it('gives AGENTS.md to the person: agents are refused with a pointer to the inbox, persons pass', () => {
    for (const path of ['AGENTS.md', 'agents.md', 'Agents.MD']) {
      const error = refusal(() => assertProtectedPath(DEFAULT_LAYOUT, AGENT, 'update', path));
      expect(error.message).toMatch(/belong to the person.*propose_to_inbox/);
      expect(() => assertProtectedPath(DEFAULT_LAYOUT, PERSON, 'update', path)).not.toThrow();
    }
  });

  it('lets only lucid init write lucid.json', () => {
    for (const path of ['lucid.json', 'LUCID.JSON']) {
      expect(refusal(() => assertProtectedPath(DEFAULT_LAYOUT, PERSON, 'update', path)).code).toBe('forbidden');
      expect(refusal(() => assertProtectedPath(DEFAULT_LAYOUT, AGENT, 'create', path)).code).toBe('forbidden');
    }
    expect(() => assertProtectedPath(DEFAULT_LAYOUT, PERSON, 'init', 'lucid.json')).not.toThrow();
  });

  it('lets agents write under skills/ only by a molt (or the dream pass), in any spelling', () => {
    for (const path of ['skills/x.md', 'Skills/x.md', 'SKILLS/archive/x.md']) {
      expect(refusal(() => assertProtectedPath(DEFAULT_LAYOUT, AGENT, 'create', path)).message).toContain('molt_skill');
      expect(() => assertProtectedPath(DEFAULT_LAYOUT, AGENT, 'molt', path)).not.toThrow();
      expect(() => assertProtectedPath(DEFAULT_LAYOUT, PERSON, 'update', path)).not.toThrow();
    }
  });

  it('folds letters whose upper case is a protected letter (ſ → S, ı → I), as Windows and APFS do', () => {
    expect(refusal(() => assertProtectedPath(DEFAULT_LAYOUT, AGENT, 'update', 'AGENTſ.md')).message).toContain('propose_to_inbox');
    expect(refusal(() => assertProtectedPath(DEFAULT_LAYOUT, AGENT, 'create', 'ſkills/x.md')).message).toContain('molt_skill');
    expect(refusal(() => assertProtectedPath(DEFAULT_LAYOUT, PERSON, 'update', 'lucıd.json')).code).toBe('forbidden');
    expect(refusal(() => assertProtectedPath(DEFAULT_LAYOUT, PERSON, 'update', 'chanGELOG.md')).code).toBe('forbidden');
    // a one-to-many upper case (ß → SS) is not a file system's fold: straße.md stays an ordinary note
    expect(() => assertProtectedPath(DEFAULT_LAYOUT, AGENT, 'create', 'notes/straße.md')).not.toThrow();
  });

  it('leaves ordinary notes alone', () => {
    for (const path of ['notes/changelog.md', 'changelog-notes.md', 'skills.md', 'notes/AGENTS.md', 'changelog/notes.md']) {
      expect(() => assertProtectedPath(DEFAULT_LAYOUT, AGENT, 'create', path)).not.toThrow();
    }
  });
});

describe('assertSkillPlacement', () => {
  it('refuses an agent a type: skill note outside the skills folder', () => {
    expect(refusal(() => assertSkillPlacement(DEFAULT_LAYOUT, AGENT, 'notes/x.md', 'skill')).message).toMatch(/skills\/.*molt_skill/);
    expect(() => assertSkillPlacement(DEFAULT_LAYOUT, AGENT, 'skills/x.md', 'skill')).not.toThrow();
    expect(() => assertSkillPlacement(DEFAULT_LAYOUT, AGENT, 'notes/x.md', 'decision')).not.toThrow();
    expect(() => assertSkillPlacement(DEFAULT_LAYOUT, PERSON, 'notes/x.md', 'skill')).not.toThrow();
  });
});

describe('assertWritableText', () => {
  it.each([
    ['a NUL', 'a\u0000b', /NUL character \(U\+0000\) on line 1/],
    ['a NUL on line 3', 'a\nb\nc\u0000', /line 3/],
    ['a lone high surrogate', 'a\ud800b', /not valid Unicode/],
    ['a lone low surrogate', 'a\udc00', /not valid Unicode/],
    ['a reversed pair', '\udc00\ud800', /not valid Unicode/],
  ])('refuses %s in the text', (_label, text, message) => {
    const error = refusal(() => assertWritableText('n.md', text));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(message);
  });

  it('refuses a NUL or a lone surrogate in a property, however deep, and names it', () => {
    expect(refusal(() => assertWritableText('n.md', '', { title: 'a\u0000' })).message).toContain('title');
    expect(refusal(() => assertWritableText('n.md', '', { tags: ['ok', 'b\ud800'] })).message).toContain('tags');
    expect(refusal(() => assertWritableText('n.md', '', { meta: { deep: 'x\u0000' } })).message).toContain('meta.deep');
  });

  it('accepts ordinary text, emoji and other planes', () => {
    expect(() => assertWritableText('n.md', '# 😀 café 日本語 \u{1F600}\n', { title: 'ok', n: 1, list: ['a'] })).not.toThrow();
  });
});

describe('isUnderFolded', () => {
  it('compares folders as macOS and Windows do', () => {
    expect(isUnderFolded('INBOX/x.md', 'inbox')).toBe(true);
    expect(isUnderFolded('Inbox', 'inbox')).toBe(true);
    expect(isUnderFolded('inboxes/x.md', 'inbox')).toBe(false);
    expect(isUnderFolded('Cafe\u0301/x.md', 'caf\u00e9')).toBe(true);
  });
});
