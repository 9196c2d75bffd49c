import { parseMoltTrailer } from '../git/commit-message';
import type { CommitIndex, CommitRecord } from '../git/commit-index';
import type { Note } from '../notes/note';
import { isUnderFolded } from '../notes/protected';
import type { Vault } from '../vault';
import { DEFAULT_STALE_DAYS, isArchivedSkill, staleness, vaultNow } from '../skills/stale';
import { skillUsage } from '../skills/usage';
import { findSimilarPairs } from './similarity';
import type { DreamDuplicate, DreamFindings, DreamInconsistent, DreamStale, FindDreamOptions } from './types';

const MOLT_TRAILER = 'Lucid-Molt';

/** The skills of the vault: notes of type skill in the skills folder (its archive left out), not archived. */
function listActiveSkills(vault: Vault, notes: readonly Note[]): Note[] {
  return notes.filter(
    (n) =>
      n.path.toLowerCase().endsWith('.md') &&
      isUnderFolded(n.path, vault.layout.skills) &&
      n.lucidType === 'skill' &&
      !isArchivedSkill(vault, n.path, n.frontmatter),
  );
}

/** A skill's name as its file says it. */
export function fileStem(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}

/** What the history says of each skill path: when it first appeared, its newest molt, and the paths it had before renames. */
interface SkillFacts {
  firstSeen: Map<string, number>;
  lastMolt: Map<string, { record: CommitRecord; to: number }>;
  earlierPaths: Map<string, string[]>;
}

/**
 * One pass over the commits that touched the skills folders (the commit index, oldest first, a
 * thousand at a time): when each skill path first appeared (ms) and its newest molt with the
 * version it made, both following renames.
 */
function skillFacts(index: CommitIndex, folders: string[]): SkillFacts {
  const facts: SkillFacts = { firstSeen: new Map(), lastMolt: new Map(), earlierPaths: new Map() };
  const inFolders = (path: string) => folders.some((folder) => isUnderFolded(path, folder));
  for (let after = 0; ; ) {
    const page = index.list({ folders, oldestFirst: true, afterSeq: after, limit: 1000 });
    for (const record of page) {
      const molt = record.op === 'molt' ? parseMoltTrailer(record.trailers[MOLT_TRAILER]) : null;
      for (const entry of record.paths) {
        if (!inFolders(entry.path)) continue;
        if (entry.status === 'D') {
          facts.firstSeen.delete(entry.path);
          facts.lastMolt.delete(entry.path);
          facts.earlierPaths.delete(entry.path);
          continue;
        }
        if (entry.oldPath) {
          const first = facts.firstSeen.get(entry.oldPath);
          const last = facts.lastMolt.get(entry.oldPath);
          if (first !== undefined) facts.firstSeen.set(entry.path, first);
          if (last) facts.lastMolt.set(entry.path, last);
          const earlier = [...(facts.earlierPaths.get(entry.oldPath) ?? []), entry.oldPath].filter((p) => p !== entry.path);
          facts.earlierPaths.set(entry.path, [...new Set(earlier)]);
        }
        if (!facts.firstSeen.has(entry.path)) facts.firstSeen.set(entry.path, record.time * 1000);
        if (molt) facts.lastMolt.set(entry.path, { record, to: molt.to });
      }
    }
    if (page.length < 1000) break;
    after = page[page.length - 1].seq;
  }
  return facts;
}

/** ms since the epoch of a front-matter time or date value, or null. */
function timeOf(value: unknown): number | null {
  if (typeof value !== 'string' && !(value instanceof Date)) return null;
  const ms = new Date(value as string).getTime();
  return Number.isFinite(ms) ? ms : null;
}

/** The date (YYYY-MM-DD, UTC) of a time in ms. */
function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The survivor of a pair first: the one with more molts (higher version), else the one whose path sorts first. */
function orient(a: Note, b: Note): [Note, Note] {
  const va = Number(a.frontmatter.version) || 0;
  const vb = Number(b.frontmatter.version) || 0;
  if (va !== vb) return va > vb ? [a, b] : [b, a];
  return a.path.localeCompare(b.path) <= 0 ? [a, b] : [b, a];
}

/**
 * The dream pass's findings (VAULT-FORMAT "Dream pass"), changing nothing: duplicate or
 * overlapping skills (pairs scored from their steps, text, trigger and name, with the evidence;
 * see similarity.ts), skills no session's `skills_used` named for `staleDays` days (default 60)
 * measured from the vault's clock (the newest commit's time, unless `now` is given; a skill never
 * used counts from its first commit), and inconsistent fields: a name that is not the file name,
 * a missing trigger, a version that is not the one its last molt in history made (from the commit
 * index). Each inconsistency carries the front-matter fields a fix would set (the fix is a molt,
 * so its version is always the true one plus one), or null when a person must decide.
 */
export async function findDreamCandidates(vault: Vault, options: FindDreamOptions = {}): Promise<DreamFindings> {
  const staleDays = options.staleDays ?? DEFAULT_STALE_DAYS;
  const progress = options.onProgress;
  const files = await vault.listFiles();
  const notes = await vault.listNotes(files);
  const skills = listActiveSkills(vault, notes).sort((x, y) => x.path.localeCompare(y.path));
  progress?.({ phase: 'read', done: skills.length, total: skills.length });
  if (skills.length === 0) return { skills: 0, duplicates: [], stale: [], inconsistent: [] };

  const index = await vault.commits();
  const now = options.now ?? (await vaultNow(vault, index)).now;

  const facts = skillFacts(index, [vault.layout.skills, vault.layout.skillsArchive]);
  progress?.({ phase: 'history', done: skills.length, total: skills.length });
  const inconsistent = skills.flatMap((skill) => inconsistenciesOf(skill, facts.lastMolt.get(skill.path) ?? null));
  const firstSeen = (skill: Note) =>
    facts.firstSeen.get(skill.path) ?? timeOf(skill.frontmatter.created) ?? timeOf(skill.frontmatter.last_updated) ?? now.getTime();

  const byPath = new Map(skills.map((s) => [s.path, s]));
  const comparable = skills.filter((s) => s.text !== null && s.problem === null);
  const pairs = findSimilarPairs(
    comparable.map((s) => ({
      path: s.path,
      name: typeof s.frontmatter.name === 'string' ? s.frontmatter.name : fileStem(s.path),
      trigger: typeof s.frontmatter.trigger === 'string' ? s.frontmatter.trigger : '',
      body: s.body,
    })),
    { onProgress: (d, total) => progress?.({ phase: 'compare', done: d, total }) },
  );
  const duplicates: DreamDuplicate[] = pairs.map((p) => {
    const [a, b] = orient(byPath.get(p.a) as Note, byPath.get(p.b) as Note);
    return { a: a.path, b: b.path, score: p.score, evidence: p.evidence };
  });

  const usage = await skillUsage(vault, { files, notes });
  const stale: DreamStale[] = [];
  for (const skill of skills) {
    // Uses recorded under the skill's earlier names count too, as on the skills page.
    const uses = [skill.path, ...(facts.earlierPaths.get(skill.path) ?? [])].map((path) => usage.get(path)?.lastUsed ?? null);
    const used = Math.max(...uses.map((u) => (u === null ? Number.NEGATIVE_INFINITY : Date.parse(u))));
    const idle = staleness(new Date(Math.max(used, firstSeen(skill))), now, staleDays);
    if (idle.stale) stale.push({ skill: skill.path, lastUsed: Number.isFinite(used) ? dayOf(used) : null, days: idle.days });
  }
  stale.sort((x, y) => y.days - x.days || x.skill.localeCompare(y.skill));
  return { skills: skills.length, duplicates, stale, inconsistent };
}

/** A skill's inconsistent fields, each with the fields a fixing molt would set. */
function inconsistenciesOf(skill: Note, molt: { record: CommitRecord; to: number } | null): DreamInconsistent[] {
  const out: DreamInconsistent[] = [];
  if (skill.problem) {
    out.push({ skill: skill.path, field: 'front matter', problem: `cannot be read: ${skill.problemMessage ?? skill.problem}`, fix: null });
    return out;
  }
  const fm = skill.frontmatter;
  const stem = fileStem(skill.path);
  const version = fm.version;
  let base = typeof version === 'number' && Number.isInteger(version) && version >= 1 ? version : null;
  if (molt && base !== molt.to) {
    const edit = molt.record.editId ?? molt.record.sha.slice(0, 12);
    out.push({
      skill: skill.path,
      field: 'version',
      problem: `version is ${JSON.stringify(version ?? null)} but its last molt (${edit}) made it version ${molt.to}`,
      fix: { version: molt.to + 1 },
    });
    base = molt.to;
  } else if (base === null) {
    out.push({
      skill: skill.path,
      field: 'version',
      problem: `version ${JSON.stringify(version ?? null)} is not a whole number of 1 or more, and no molt in its history says which it is`,
      fix: null,
    });
  }
  const fixVersion = base === null ? null : { version: base + 1 };
  if (typeof fm.name !== 'string' || fm.name !== stem) {
    out.push({
      skill: skill.path,
      field: 'name',
      problem: typeof fm.name === 'string' ? `name "${fm.name}" is not the file name "${stem}"` : `name is missing (the file name is "${stem}")`,
      fix: fixVersion ? { name: stem, ...fixVersion } : null,
    });
  }
  if (typeof fm.trigger !== 'string' || fm.trigger.trim() === '') {
    out.push({
      skill: skill.path,
      field: 'trigger',
      problem: 'trigger is missing: say when an agent should use this skill (a person or molt_skill must write it)',
      fix: null,
    });
  }
  return out;
}
