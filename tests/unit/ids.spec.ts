import { describe, expect, it } from 'vitest';
import { newEditId, newSessionId, seededIds, slugify } from '../../lib/vault/ids';

describe('ids and slugs', () => {
  it('slugs are [a-z0-9-], at most 60 characters, and never start or end with a dash', () => {
    expect(slugify('Claude Code')).toBe('claude-code');
    expect(slugify('  Ünïcödé — Agent!! ')).toBe('unicode-agent');
    const long = slugify(`${'a'.repeat(59)} b`);
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long.endsWith('-')).toBe(false);
  });

  it('edit and session ids have the shapes of the vault format', () => {
    const ids = seededIds(7);
    expect(newEditId(ids)).toMatch(/^e[a-z2-7]{12}$/);
    expect(newSessionId(new Date(2026, 10, 30, 14, 1, 12), 'claude-code', ids)).toMatch(/^20261130-140112-claude-code-[a-z2-7]{4}$/);
  });
});

describe("the demo vault's default anchor", () => {
  it("is today once the anchor day's edits are past, else yesterday, so no commit is dated in the future", async () => {
    const { defaultDemoAnchor } = await import('../../lib/demo/demo');
    expect(defaultDemoAnchor(new Date(2026, 10, 30, 14, 0))).toEqual(new Date(2026, 10, 30));
    expect(defaultDemoAnchor(new Date(2026, 10, 30, 6, 30))).toEqual(new Date(2026, 10, 29));
    expect(defaultDemoAnchor(new Date(2026, 11, 1, 0, 5))).toEqual(new Date(2026, 10, 30));
  });
});
