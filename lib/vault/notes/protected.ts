import nodePath from 'node:path';
import { CONFIG_FILE, type VaultLayout } from './layout';
import { VaultError } from '../errors';
import type { VaultFs } from '../fs';
import type { FrontmatterData } from './frontmatter';
import { checkNewName, foldName } from './paths';

/** The ops through which an agent may write under the skills folder (a molt, or the dream pass). */
const SKILL_OPS = new Set(['molt', 'archive', 'merge']);

function foldPath(path: string): string {
  return path.split('/').map(foldName).join('/');
}

/** True when `path` is `place` or inside it, compared as macOS and Windows compare names. */
export function isUnderFolded(path: string, place: string): boolean {
  const p = foldPath(path);
  const f = foldPath(place);
  return p === f || p.startsWith(`${f}/`);
}

/** The changelog's month archives are `changelog/YYYY-MM.md`. */
function isFoldedChangelog(layout: VaultLayout, path: string): boolean {
  if (foldPath(path) === foldPath(layout.changelog)) return true;
  const segments = path.split('/');
  const archive = layout.changelogArchive.split('/');
  return (
    segments.length === archive.length + 1 &&
    foldPath(segments.slice(0, -1).join('/')) === foldPath(layout.changelogArchive) &&
    /^\d{4}-\d{2}\.md$/i.test(segments[segments.length - 1])
  );
}

/**
 * Refuses a write to a file the layout gives to Lucid or to the person, compared as macOS and
 * Windows compare names (any case, any Unicode form), so `CHANGELOG.md` is the changelog there:
 * the changelog and its monthly archives (Lucid writes them, one line per edit), `lucid.json`
 * (only `lucid init` writes it), and, for agents (`agent:*`), the memory protocol `AGENTS.md`
 * (it belongs to the person: agents propose a change through the inbox) and anything under the
 * skills folder except by a molt (molt_skill raises the version and records it).
 */
export function assertProtectedPath(layout: VaultLayout, actor: string, op: string, path: string): void {
  if (isFoldedChangelog(layout, path)) {
    throw new VaultError(
      'forbidden',
      `${path} is the changelog (${layout.changelog}) on macOS and Windows; it is written by Lucid itself, one line per edit.`,
      {
        path,
      },
    );
  }
  if (foldPath(path) === foldName(CONFIG_FILE) && op !== 'init') {
    throw new VaultError('forbidden', `${CONFIG_FILE} is written by lucid init; a person edits it by hand.`, { path });
  }
  if (!actor.startsWith('agent:')) return;
  if (foldPath(path) === foldPath(layout.agents)) {
    throw new VaultError(
      'forbidden',
      `${layout.agents} (the memory protocol) and ${CONFIG_FILE} belong to the person: agents change them only through the inbox. Send the change with propose_to_inbox (target ${layout.agents}) and a person will accept or reject it.`,
      { path },
    );
  }
  if (isUnderFolded(path, layout.skills) && !SKILL_OPS.has(op)) {
    throw new VaultError('forbidden', `${path} is under ${layout.skills}/: skills are written by molt_skill, which raises the version and records the molt.`, {
      path,
    });
  }
}

/**
 * Refuses an agent's note of `type: skill` outside the skills folder (start_session would
 * recommend it, unversioned): skills live under `skills/` and are written by molt_skill.
 */
export function assertSkillPlacement(layout: VaultLayout, actor: string, path: string, type: string | null): void {
  if (type !== 'skill' || !actor.startsWith('agent:') || isUnderFolded(path, layout.skills)) return;
  throw new VaultError(
    'forbidden',
    `${path} has type: skill, but skills live under ${layout.skills}/ and are written by molt_skill (which versions them). Use molt_skill, or give this note another type.`,
    { path },
  );
}

/** A lone UTF-16 surrogate: a JS string that is not valid Unicode, which UTF-8 cannot encode. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses text that cannot be written as the note's exact UTF-8: a NUL character (the note would
 * then read as binary, and no agent could change it again) or a lone surrogate (encoding it would
 * silently become U+FFFD). `frontmatter`, when given, is checked too (YAML writes a NUL in a
 * property as the escape `\0`, so the text alone does not show it).
 */
export function assertWritableText(path: string, text: string, frontmatter?: FrontmatterData): void {
  const at = text.indexOf('\u0000');
  if (at !== -1) {
    const line = text.slice(0, at).split('\n').length;
    throw new VaultError(
      'invalid_input',
      `The content for ${path} holds a NUL character (U+0000) on line ${line} of the new text (front matter included); notes are text and cannot contain it. Remove it and write again.`,
      { path },
    );
  }
  if (!isWellFormed(text)) {
    throw new VaultError(
      'invalid_input',
      `The content for ${path} is not valid Unicode (a lone surrogate, often half of a cut emoji); it would be written as U+FFFD. Send the text as valid UTF-8.`,
      { path },
    );
  }
  if (frontmatter) {
    const bad = badProperty(frontmatter);
    if (bad) {
      throw new VaultError(
        'invalid_input',
        `The property ${bad} of ${path} holds a NUL character (U+0000) or is not valid Unicode; remove it and write again.`,
        {
          path,
          field: bad,
        },
      );
    }
  }
}

/** String.prototype.isWellFormed where the runtime has it (Node 20 does), the same test by regex elsewhere. */
function isWellFormed(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof native === 'function' ? native.call(text) : !LONE_SURROGATE.test(text);
}

function badProperty(value: unknown, name = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') || !isWellFormed(value) ? name || 'value' : null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const bad = badProperty(item, name);
      if (bad) return bad;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return name ? `${name}.${JSON.stringify(key)}` : JSON.stringify(key);
      const bad = badProperty(item, name ? `${name}.${key}` : key);
      if (bad) return bad;
    }
  }
  return null;
}

/**
 * Checks a file about to be created (it does not exist under this exact name): refuses, naming the
 * existing file, a name that differs from an existing file or folder only in case or Unicode form
 * (`Notes.md` beside `notes.md`, NFD `café` beside NFC `café`: one file on macOS and Windows), or
 * from a place the layout assigns (`INBOX/`, `Skills/`, `Changelog/`); and applies
 * {@link checkNewName} to the names that do not exist yet. Existing names are not judged.
 */
export async function assertCreatable(fs: Pick<VaultFs, 'readdir'>, root: string, layout: VaultLayout, path: string): Promise<void> {
  const segments = path.split('/');
  for (const place of [
    layout.inbox,
    layout.sessions,
    layout.skills,
    layout.skillsArchive,
    layout.changelogArchive,
    layout.changelog,
    layout.agents,
    CONFIG_FILE,
  ]) {
    const n = place.split('/').length;
    if (segments.length >= n && foldPath(segments.slice(0, n).join('/')) === foldPath(place) && segments.slice(0, n).join('/') !== place) {
      throw new VaultError(
        'invalid_path',
        `${path}: "${segments.slice(0, n).join('/')}" is Lucid's ${place} spelled differently; on macOS and Windows they are the same ${n === segments.length ? 'file' : 'folder'}. Use ${place}${n === segments.length ? '' : '/'} instead.`,
        { path },
      );
    }
  }
  let fresh = 0;
  for (let i = 0; i < segments.length; i += 1) {
    const dir = nodePath.join(root, ...segments.slice(0, i));
    const entries = await fs.readdir(dir).catch(() => null);
    if (!entries) {
      fresh = i;
      break;
    }
    const names = entries.map((entry) => entry.name);
    if (names.includes(segments[i])) {
      if (i === segments.length - 1) return;
      continue;
    }
    const folded = foldName(segments[i]);
    const twin = names.find((name) => name !== segments[i] && foldName(name) === folded);
    if (twin !== undefined) {
      const existing = [...segments.slice(0, i), twin].join('/');
      throw new VaultError(
        'invalid_path',
        `${path} would collide with the existing ${existing}: names that differ only in case or Unicode form are one file on macOS and Windows. Write to ${[existing, ...segments.slice(i + 1)].join('/')} instead, or choose another name.`,
        { path, existing },
      );
    }
    fresh = i;
    break;
  }
  checkNewName(path, fresh);
}

/**
 * The rules a note's new text must meet besides its schema: no NUL or invalid Unicode in its
 * properties ({@link assertWritableText}) and, for agents, `type: skill` only under the skills
 * folder ({@link assertSkillPlacement}).
 */
export function assertNoteRules(layout: VaultLayout, actor: string, note: { path: string; type: string | null; frontmatter: FrontmatterData }): void {
  assertWritableText(note.path, '', note.frontmatter);
  assertSkillPlacement(layout, actor, note.path, note.type);
}
