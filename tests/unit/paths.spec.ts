import { describe, expect, it } from 'vitest';
import { VaultError, type VaultErrorCode } from '../../lib/vault/errors';
import { checkNewName, foldName, isInside, normalizeNotePath, normalizeVaultPath } from '../../lib/vault/notes/paths';

function refusal(run: () => unknown): VaultError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected the path to be refused');
}

function expectRefused(input: unknown, code: VaultErrorCode, options: { forWrite?: boolean } = {}): VaultError {
  const error = refusal(() => normalizeVaultPath(input, options));
  expect(error.code).toBe(code);
  expect(error.message.length).toBeGreaterThan(10);
  return error;
}

const TRAVERSAL: [string, string][] = [
  ['a relative path that climbs out', '../../etc/passwd'],
  ['a path that climbs out at the end', 'notes/..'],
  ['a path that climbs out after a folder', 'notes/../../x'],
  ['..%2F repeated 20 times', `${'..%2F'.repeat(20)}etc/passwd`],
  ['..%2f in lower case', '..%2f..%2fetc%2fpasswd'],
  ['%2e%2e/ (encoded dots)', '%2e%2e/%2e%2e/etc/passwd'],
  ['.%2e/ (one encoded dot)', '.%2e/secret.md'],
  ['double-encoded %252e%252e%252f', '%252e%252e%252fetc/passwd'],
  ['triple-encoded %25252e%25252e%25252f', '%25252e%25252e%25252fetc/passwd'],
];

const ABSOLUTE: [string, string][] = [
  ['a POSIX absolute path', '/etc/passwd'],
  ['a UNC-style path', '//server/share/x.md'],
  ['a Windows drive path', 'C:/Windows/win.ini'],
  ['a Windows drive-relative path', 'C:foo.md'],
  ['an encoded absolute path', '%2Fetc%2Fpasswd'],
];

describe('normalizeVaultPath: staying inside the vault', () => {
  it.each(TRAVERSAL)('refuses %s', (_label, input) => {
    const error = expectRefused(input, 'invalid_path');
    expect(error.message).toContain('outside the vault');
    expectRefused(input, 'invalid_path', { forWrite: true });
    expect(() => normalizeNotePath(`${input}/x.md`)).toThrow(VaultError);
  });

  it.each(ABSOLUTE)('refuses %s', (_label, input) => {
    expectRefused(input, 'invalid_path');
    expectRefused(input, 'invalid_path', { forWrite: true });
  });

  it.each([['..\\..\\etc\\passwd'], ['notes\\..\\..\\x.md'], ['notes\\a.md'], ['%2e%2e%5cx']])('refuses backslashes in %j', (input) => {
    expectRefused(input, 'invalid_path');
  });

  it.each([
    ['NUL', 'a\u0000b.md'],
    ['a line feed', 'a\nb.md'],
    ['a carriage return', 'a\rb.md'],
    ['a tab', 'a\tb.md'],
    ['DEL', 'a\u007fb.md'],
  ])('refuses %s in a name with a clear message', (_label, input) => {
    const error = expectRefused(input, 'invalid_path');
    expect(error.message).toMatch(/control characters/);
  });

  it.each([[''], ['   '], ['.'], ['./'], ['/'], [null], [undefined], [42], [['a.md']]])('refuses %j as no path at all', (input) => {
    expectRefused(input, 'invalid_path');
  });

  it('refuses names longer than 255 bytes and paths longer than 1024 bytes', () => {
    expectRefused(`${'x'.repeat(256)}.md`, 'invalid_path');
    expectRefused(`${'folder/'.repeat(150)}a.md`, 'invalid_path');
    expect(normalizeVaultPath(`${'x'.repeat(252)}.md`)).toHaveLength(255);
  });
});

describe('normalizeVaultPath: protected places', () => {
  it.each([
    ['.git/config'],
    ['.git/hooks/post-commit'],
    ['.git/index'],
    ['.git'],
    ['notes/.git/config'],
    ['.GIT/config'],
    ['.Git/hooks/post-commit'],
    ['.git./config'],
    ['.git /hooks/pre-commit'],
  ])('refuses %j for reading and for writing', (input) => {
    expectRefused(input, 'forbidden');
    expectRefused(input, 'forbidden', { forWrite: true });
  });

  it.each([
    ['.obsidian/plugins/x/main.js'],
    ['.obsidian/app.json'],
    ['.Obsidian/plugins/x/main.js'],
    ['.lucid/vault.lock'],
    ['.lucid/search.sqlite'],
    ['.LUCID/token'],
    ['.trash/old.md'],
    ['.lucid-tmp-x'],
    ['notes/.lucid-tmp-abc'],
    ['notes/.LUCID-TMP-abc'],
  ])('refuses to write %j', (input) => {
    expectRefused(input, 'forbidden', { forWrite: true });
  });

  it.each([
    ['notes/.obsidian/x.md'],
    ['a/b/.obsidian/plugins/x/main.js'],
    ['notes/.OBSIDIAN/app.json'],
    ['notes/.obsidian./app.json'],
    ['.obsidian::$DATA/app.json'],
    ['.git::$INDEX_ALLOCATION/config'],
    ['notes/.git:stream/config'],
  ])('refuses to write %j: .obsidian/ and .git/ at any depth, in any spelling Windows or macOS opens', (input) => {
    expectRefused(input, 'forbidden', { forWrite: true });
  });

  it('lets a nested .obsidian/ be read, like the top one', () => {
    expect(normalizeVaultPath('notes/.obsidian/app.json')).toBe('notes/.obsidian/app.json');
  });

  it("lets Obsidian's settings be read but never Lucid's own state", () => {
    expect(normalizeVaultPath('.obsidian/app.json')).toBe('.obsidian/app.json');
    expectRefused('.lucid/search.sqlite', 'forbidden');
  });
});

describe('normalizeVaultPath: ordinary names (negative controls)', () => {
  it.each([
    ['a..b.md'],
    ['..notes.md'],
    ['notes/...md'],
    ['my note with spaces.md'],
    ['C# tips.md'],
    ['100% done.md'],
    ['%ZZ not an escape.md'],
    ['ideas 😀.md'],
    ['Заметки/план.md'],
    ['日本語/メモ.md'],
    ['-n.md'],
    ['--help.md'],
    ['HEAD'],
    ['notes/.obsidian-like.md'],
    ['notes/.gitignore-notes.md'],
    ['.github/README.md'],
  ])('accepts %j unchanged for reading and writing', (input) => {
    expect(normalizeVaultPath(input)).toBe(input);
    expect(normalizeVaultPath(input, { forWrite: true })).toBe(input);
  });

  it('canonicalizes ./ and repeated slashes without changing the name', () => {
    expect(normalizeVaultPath('./notes//a.md')).toBe('notes/a.md');
    expect(normalizeVaultPath('notes/./a.md/')).toBe('notes/a.md');
  });

  it('never URL-decodes the name it returns', () => {
    expect(normalizeVaultPath('a%20b.md')).toBe('a%20b.md');
  });
});

describe('normalizeNotePath', () => {
  it('accepts markdown notes in any case of the extension', () => {
    expect(normalizeNotePath('notes/a.md')).toBe('notes/a.md');
    expect(normalizeNotePath('notes/A.MD')).toBe('notes/A.MD');
  });

  it.each([['notes/a.txt'], ['notes/a'], ['image.png'], ['notes/a.md.bak']])('refuses %j as not a note', (input) => {
    const error = refusal(() => normalizeNotePath(input));
    expect(error.code).toBe('invalid_path');
    expect(error.message).toContain('.md');
  });

  it('applies every vault-path rule first', () => {
    expect(refusal(() => normalizeNotePath('../x.md')).code).toBe('invalid_path');
    expect(refusal(() => normalizeNotePath('.git/x.md')).code).toBe('forbidden');
    expect(refusal(() => normalizeNotePath('.obsidian/x.md', { forWrite: true })).code).toBe('forbidden');
  });
});

describe('isInside', () => {
  it('is true for the folder itself and anything under it', () => {
    expect(isInside('/x/vault', '/x/vault')).toBe(true);
    expect(isInside('/x/vault', '/x/vault/notes/a.md')).toBe(true);
    expect(isInside('/x/vault', '/x/vault/..notes.md')).toBe(true);
  });

  it("is false for a sibling whose name starts with the vault's name", () => {
    expect(isInside('/x/vault', '/x/vault-old/secret.md')).toBe(false);
    expect(isInside('/x/vault', '/x/..vault/secret.md')).toBe(false);
    expect(isInside('/x/vault', '/x')).toBe(false);
    expect(isInside('/x/vault', '/x/vault/..')).toBe(false);
    expect(isInside('/x/vault', '/etc/passwd')).toBe(false);
  });
});

describe('foldName', () => {
  it('folds case and Unicode form as macOS and Windows compare names', () => {
    expect(foldName('Cafe\u0301.MD')).toBe(foldName('caf\u00e9.md'));
    expect(foldName('CHANGELOG.md')).toBe('changelog.md');
    expect(foldName('Inbox')).toBe(foldName('INBOX'));
    expect(foldName('notes')).not.toBe(foldName('note'));
  });
});

describe('checkNewName (catalog #19): names a new file may not have', () => {
  it.each([
    ['-rf.md', /start with "-"/],
    ['--help.md', /start with "-"/],
    ['notes/-x.md', /start with "-"/],
    [':(glob)x.md', /":".*pathspec/],
    ['aux:', /":"/],
    ['C:foo.md', /":"/],
    ['notes/a<b.md', /"<"/],
    ['notes/a"b.md', /'"'/],
    ['notes/what?.md', /"\?"/],
    ['notes/*.md', /"\*"/],
    ['CON.md', /device name/],
    ['con', /device name/],
    ['notes/Aux.txt.md', /device name/],
    ['prn.md', /device name/],
    ['NUL.md', /device name/],
    ['com1.md', /device name/],
    ['LPT9.md', /device name/],
    ['com\u00b9.md', /device name/],
    ['notes/trailing.', /dot or a space/],
    ['notes /x.md', /dot or a space/],
  ])('refuses %j', (input, message) => {
    const error = refusal(() => checkNewName(input));
    expect(error.code).toBe('invalid_path');
    expect(error.message).toMatch(message);
  });

  it.each([['a..b.md'], ['..notes.md'], ['HEAD'], ['notes/my note #1 (50%).md'], ['console.md'], ['auxiliary.md'], ['com10.md'], ['notes/a-b.md'], ['x.md']])(
    'accepts %j',
    (input) => {
      expect(() => checkNewName(input)).not.toThrow();
    },
  );

  it('judges only the segments that do not exist yet', () => {
    expect(() => checkNewName('-old/x.md', 1)).not.toThrow();
    expect(() => checkNewName('-old/-x.md', 1)).toThrow(VaultError);
  });
});
