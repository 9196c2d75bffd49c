import nodePath from 'node:path';
import { isChangelogPath } from '../notes/layout';
import { VaultError, isVaultError } from '../errors';
import { addChangelogLine, formatChangelogLine } from '../git/changelog';
import { oneLine } from '../text';
import { formatCommitMessage } from '../git/commit-message';
import { headCommit, runGit, vaultPathOf } from '../git/repo';
import { commitToRef, listFilesAt, readFilesAt, type TreeChange } from '../git/tree';
import { formatDate, idStamp, newEditId } from '../ids';
import { editFrontmatter, parseFrontmatter, splitNote } from '../notes/frontmatter';
import { planMove, type PlanNote } from '../notes/move-plan';
import { parseNoteBytes } from '../notes/note';
import { noteLink } from '../notes/note-formats';
import { normalizeVaultPath } from '../notes/paths';
import { isUnderFolded } from '../notes/protected';
import { maskSecrets } from '../write/secrets';
import type { Vault } from '../vault';
import { fileStem } from './find';
import { mergeProcedures, mergeTriggers } from './merge-text';
import { DREAM_ACTOR, DREAM_BRANCH_PREFIX, DREAM_TRAILER, type ApplyDreamOptions, type DreamChange, type DreamFindings, type DreamRun } from './types';

/** One change of a run, before it is built on the branch. */
interface Planned {
  op: DreamChange['op'];
  reason: string;
  /** the files it changes, read from the branch tip; a string says why it was skipped */
  build: (tip: Tip) => Promise<Built | string>;
}

interface Built {
  /** the note the commit is about (its subject and changelog line) */
  about: string;
  changes: TreeChange[];
  molt?: string;
}

/** The branch as built so far. */
interface Tip {
  commit: string;
  files: Set<string>;
}

const BOM = '\uFEFF';

/** A dream run id: `YYYYMMDD-HHMMSS-<4 base32>` in the clock's local time. */
function newRunId(vault: Vault, now: Date): string {
  return `${idStamp(now)}-${vault.ids.base32(4)}`;
}

/** A skill path from findings (which may come from JSON): normalized and inside the skills folder, else null. */
function skillPath(vault: Vault, value: unknown): string | null {
  try {
    const path = normalizeVaultPath(value);
    if (!path.toLowerCase().endsWith('.md') || !isUnderFolded(path, vault.layout.skills) || isUnderFolded(path, vault.layout.skillsArchive)) return null;
    return path;
  } catch {
    return null;
  }
}

/** The notes whose text names `stem` at `commit` (one `git grep`), so only they are parsed for links. */
async function notesNaming(vault: Vault, commit: string, stem: string): Promise<string[]> {
  try {
    const out = await runGit(vault.repo, ['grep', '-l', '-z', '-i', '-F', '--full-name', '-e', stem, commit, '--']);
    return out
      .split('\0')
      .filter(Boolean)
      .map((hit) => vaultPathOf(vault.repo, hit.slice(hit.indexOf(':') + 1)))
      .filter((path): path is string => typeof path === 'string')
      .filter((path) => path.toLowerCase().endsWith('.md') && !isChangelogPath(vault.layout, path));
  } catch (error) {
    if (isVaultError(error, 'io_error')) return []; // git grep exits 1 when nothing matches
    throw error;
  }
}

/**
 * The changes that move `from` to `to` on the branch, its text replaced by `movedText` and every
 * link to it rewritten (move_note's planner); `edited` are other notes' new texts to start from.
 * A string says why the move cannot be made.
 */
async function moveWithLinks(
  vault: Vault,
  tip: Tip,
  move: { from: string; to: string; movedText: string },
  edited: Map<string, string>,
  today: string,
): Promise<TreeChange[] | string> {
  if (tip.files.has(move.to)) return `${move.to} exists already`;
  const naming = await notesNaming(vault, tip.commit, fileStem(move.from));
  const texts = await readFilesAt(
    vault.repo,
    tip.commit,
    naming.filter((p) => !edited.has(p) && p !== move.from),
  );
  const all = new Map<string, string>([...texts, ...edited, [move.from, move.movedText]]);
  const notes: PlanNote[] = [];
  const boms = new Set<string>();
  for (const [path, raw] of all) {
    const text = raw.startsWith(BOM) ? raw.slice(1) : raw;
    if (text !== raw) boms.add(path);
    const { note } = parseNoteBytes(path, Buffer.from(text, 'utf8'), 0);
    notes.push({ path, text: note.text, links: note.links, problem: note.problem, problemMessage: note.problemMessage });
  }
  const plan = planMove({ files: [...tip.files], notes, from: move.from, to: move.to });
  if (plan.blocked.length > 0) return plan.blocked.map((b) => `${b.path}: ${b.why}`).join('; ');
  const withBom = (path: string, text: string) => (boms.has(path) ? `${BOM}${text}` : text);
  const changes: TreeChange[] = [
    { path: move.to, content: withBom(move.from, plan.texts.get(move.from) ?? move.movedText) },
    { path: move.from, content: null },
  ];
  const written = new Set([move.from]);
  for (const [path, text] of plan.texts) {
    if (path === move.from) continue;
    written.add(path);
    // VAULT-FORMAT: Lucid sets `updated` on the notes of its own types that it writes
    const note = notes.find((n) => n.path === path);
    const stamped =
      !edited.has(path) && note && parseNoteBytes(path, Buffer.from(text, 'utf8'), 0).note.lucidType ? editFrontmatter(text, { updated: today }).text : text;
    changes.push({ path, content: withBom(path, stamped) });
  }
  for (const [path, text] of edited) if (!written.has(path)) changes.push({ path, content: text });
  return changes;
}

/** A skill's text at the tip with its front matter parsed, or why it cannot be changed. */
async function readSkill(vault: Vault, tip: Tip, path: string): Promise<{ text: string; data: Record<string, unknown> } | string> {
  const text = (await readFilesAt(vault.repo, tip.commit, [path])).get(path);
  if (text === undefined) return `${path} is no longer there`;
  const parsed = parseFrontmatter(text.startsWith(BOM) ? text.slice(1) : text);
  if (!parsed.ok) return `${path}'s front matter cannot be read (${parsed.error})`;
  return { text, data: parsed.data };
}

function versionOf(data: Record<string, unknown>): number | null {
  const v = data.version;
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : null;
}

function linkList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** The changes of a run, in order: fixes (molts), then merges, then archives of stale skills. */
function planRun(vault: Vault, findings: DreamFindings, today: () => string): Planned[] {
  const planned: Planned[] = [];
  const merged = new Set<string>();
  const merges: { a: string; b: string; score: number; evidence: string[] }[] = [];
  for (const d of findings.duplicates ?? []) {
    const a = skillPath(vault, d.a);
    const b = skillPath(vault, d.b);
    if (!a || !b || a === b || merged.has(a) || merged.has(b)) continue;
    merged.add(a).add(b);
    merges.push({ a, b, score: Number(d.score) || 0, evidence: Array.isArray(d.evidence) ? d.evidence.map(String) : [] });
  }
  const archived = new Set(merges.map((m) => m.b));
  const stale = (findings.stale ?? []).flatMap((s) => {
    const path = skillPath(vault, s.skill);
    return path && !archived.has(path) && !merged.has(path) ? [{ ...s, skill: path }] : [];
  });
  for (const s of stale) archived.add(s.skill);

  const fixes = new Map<string, { fields: Record<string, unknown>; problems: string[] }>();
  for (const i of findings.inconsistent ?? []) {
    const path = skillPath(vault, i.skill);
    if (!path || !i.fix || archived.has(path)) continue;
    const entry = fixes.get(path) ?? { fields: {}, problems: [] };
    Object.assign(entry.fields, i.fix);
    entry.problems.push(`${i.field}: ${i.problem}`);
    fixes.set(path, entry);
  }
  for (const [path, fix] of fixes) {
    planned.push({
      op: 'molt',
      reason: `fixed ${path}: ${fix.problems.join('; ')}`,
      build: async (tip) => {
        const skill = await readSkill(vault, tip, path);
        if (typeof skill === 'string') return skill;
        const fixedVersion = typeof fix.fields.version === 'number' ? fix.fields.version : null;
        const current = versionOf(skill.data);
        const to = fixedVersion ?? (current === null ? null : current + 1);
        if (to === null) return `${path} has no valid version to molt from`;
        const name = typeof fix.fields.name === 'string' ? fix.fields.name : String(skill.data.name ?? fileStem(path));
        const text = editFrontmatter(skill.text, { ...fix.fields, version: to, last_updated: today(), updated: today() }).text;
        return { about: path, changes: [{ path, content: text }], molt: `${name} ${to - 1}->${to}` };
      },
    });
  }
  for (const m of merges) {
    planned.push({
      op: 'merge',
      reason: `merged ${m.b} into ${m.a} (score ${m.score.toFixed(2)}): ${m.evidence.join('; ')}`,
      build: async (tip) => {
        const [a, b] = [await readSkill(vault, tip, m.a), await readSkill(vault, tip, m.b)];
        if (typeof a === 'string') return a;
        if (typeof b === 'string') return b;
        const from = versionOf(a.data);
        if (from === null) return `${m.a} has no valid version to molt from`;
        const to = `${vault.layout.skillsArchive}/${fileStem(m.b)}.md`;
        const aBody = splitNote(a.text.replace(/^\uFEFF/, ''));
        const bBody = splitNote(b.text.replace(/^\uFEFF/, ''));
        const merged = mergeProcedures(aBody.body, bBody.body, fileStem(m.b));
        const trigger = mergeTriggers(String(a.data.trigger ?? ''), String(b.data.trigger ?? ''));
        const replaces = [...new Set([...linkList(a.data.replaces), noteLink(to)])];
        const fields = editFrontmatter(a.text, { version: from + 1, last_updated: today(), updated: today(), replaces, ...(trigger ? { trigger } : {}) }).text;
        const survivor = fields.slice(0, fields.length - splitNote(fields.replace(/^\uFEFF/, '')).body.length) + merged.body;
        const archivedText = editFrontmatter(b.text, { status: 'archived', merged_into: noteLink(m.a), updated: today() }).text;
        const changes = await moveWithLinks(vault, tip, { from: m.b, to, movedText: archivedText }, new Map([[m.a, survivor]]), today());
        if (typeof changes === 'string') return changes;
        return { about: m.a, changes, molt: `${String(a.data.name ?? fileStem(m.a))} ${from}->${from + 1}` };
      },
    });
  }
  for (const s of stale) {
    planned.push({
      op: 'archive',
      reason: `no session used ${s.skill} for ${s.days} days (${s.lastUsed ? `last used ${s.lastUsed}` : 'never used'})`,
      build: async (tip) => {
        const skill = await readSkill(vault, tip, s.skill);
        if (typeof skill === 'string') return skill;
        const to = `${vault.layout.skillsArchive}/${fileStem(s.skill)}.md`;
        const text = editFrontmatter(skill.text, { status: 'archived', updated: today() }).text;
        const changes = await moveWithLinks(vault, tip, { from: s.skill, to, movedText: text }, new Map(), today());
        return typeof changes === 'string' ? changes : { about: to, changes };
      },
    });
  }
  return planned;
}

/** The changelog (and a month archive when the line rotates earlier ones out) at the tip with `line` added. */
async function changelogChanges(vault: Vault, tip: Tip, line: string, month: string): Promise<TreeChange[]> {
  const path = vault.layout.changelog;
  const current = (await readFilesAt(vault.repo, tip.commit, [path])).get(path) ?? null;
  const wanted = new Set<string>();
  addChangelogLine(current, line, month, (m) => {
    wanted.add(`${vault.layout.changelogArchive}/${m}.md`);
    return null;
  });
  const archives = await readFilesAt(vault.repo, tip.commit, [...wanted]);
  const rotated = addChangelogLine(current, line, month, (m) => archives.get(`${vault.layout.changelogArchive}/${m}.md`) ?? null);
  return [
    { path, content: rotated.changelog },
    ...[...rotated.archives].map(([m, text]) => ({ path: `${vault.layout.changelogArchive}/${m}.md`, content: text })),
  ];
}

/**
 * Writes the findings as the branch `dream/<run id>` (VAULT-FORMAT "Dream pass"), built on the
 * current branch's HEAD without switching HEAD or touching the working tree or the real index:
 * each change is one commit made on a temporary index in `.lucid/` (commit-tree, update-ref),
 * with its changelog line, `Lucid-Actor: agent:dream`, `Lucid-Op`, `Lucid-Edit`, `Lucid-Dream`
 * and, for molts and merges, `Lucid-Molt`. Fixes come first (a molt setting the fix's fields),
 * then merges (the survivor `a` molts to the union of both procedures and gains `replaces`; `b`
 * gets `status: archived` and `merged_into` and moves to the skills archive, links to it
 * rewritten across the vault), then stale skills are archived the same way. A skill takes part in
 * one merge at most; a change that cannot be made (a note in the way, a skill gone) is left out
 * and listed in `skipped`. Nothing is deleted. With no change to make, no branch is created.
 * `beforeCommit(n)` is awaited before the n-th commit (a test hook); `onProgress` is told before
 * each finding is built and once at the end (phase `apply`).
 */
export async function applyDreamRun(vault: Vault, findings: DreamFindings, options: ApplyDreamOptions = {}): Promise<DreamRun> {
  const base = await headCommit(vault.repo);
  if (!base) throw new VaultError('invalid_input', 'The vault has no commits yet; commit something (lucid init does) before a dream run.');
  const clock = () => options.now ?? vault.clock();
  const runId = newRunId(vault, clock());
  const branch = `${DREAM_BRANCH_PREFIX}${runId}`;
  const ref = `refs/heads/${branch}`;
  const committer = vault.gitIdentity(vault.person);
  const author = vault.gitIdentity(DREAM_ACTOR);
  const tip: Tip = { commit: base, files: new Set(await listFilesAt(vault.repo, base)) };
  const planned = planRun(vault, findings, () => formatDate(clock()));
  const changes: DreamChange[] = [];
  const skipped: DreamRun['skipped'] = [];
  for (const [n, change] of planned.entries()) {
    options.onProgress?.({ phase: 'apply', done: n, total: planned.length });
    const reason = maskSecrets(oneLine(change.reason)).text;
    const built = await change.build(tip);
    if (typeof built === 'string') {
      skipped.push({ op: change.op, reason, why: built });
      continue;
    }
    const date = clock();
    const editId = newEditId(vault.ids);
    const line = formatChangelogLine({ date, actor: DREAM_ACTOR, op: change.op, path: built.about, reason, editId });
    const logChanges = await changelogChanges(vault, tip, line, formatDate(date).slice(0, 7));
    const extra: [string, string][] = built.molt ? [['Lucid-Molt', oneLine(built.molt)]] : [];
    extra.push([DREAM_TRAILER, runId]);
    const message = formatCommitMessage({ op: change.op, path: built.about, reason, actor: DREAM_ACTOR, editId, extra, machine: vault.machine });
    await options.beforeCommit?.(changes.length);
    const indexFile = nodePath.join(vault.stateDir(), `dream-${vault.ids.base32(10)}.index`);
    let sha: string;
    try {
      sha = await commitToRef(vault.repo, {
        ref,
        parent: tip.commit,
        expectedOld: changes.length === 0 ? null : tip.commit,
        changes: [...built.changes, ...logChanges],
        message,
        author,
        committer,
        date,
        indexFile,
      });
    } finally {
      await vault.fs.unlink(indexFile).catch(() => undefined);
    }
    tip.commit = sha;
    for (const c of built.changes) {
      if (c.content === null) tip.files.delete(c.path);
      else tip.files.add(c.path);
    }
    for (const c of logChanges) tip.files.add(c.path);
    changes.push({ sha, op: change.op, paths: built.changes.map((c) => c.path), reason });
  }
  options.onProgress?.({ phase: 'apply', done: planned.length, total: planned.length });
  return { runId, branch, base, changes, skipped };
}
