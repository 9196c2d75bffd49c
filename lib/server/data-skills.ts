import 'server-only';
import {
  type LinkKind,
  type Note,
  findSkillPath,
  isArchivedSkill,
  listSkills,
  skillDiff,
  skillHistory,
  type SkillList,
  type SkillVersion,
  VaultError,
} from '@/lib/vault';
import { CHANGELOG_MAX_PATCH, safeDecode } from './data';
import { getVault } from './vault';

// The skills pages' reads, beside data.ts.

/** The skills page: every skill with its last use, molts and staleness. */
export async function fetchSkills(): Promise<SkillList> {
  return listSkills(await getVault());
}

/** A skill's page: its note, its versions (newest first, across renames) and the latest molt's diff. */
export interface SkillView {
  name: string;
  path: string;
  note: Note;
  archived: boolean;
  /** The person a restore is made as. */
  person: string;
  versions: SkillVersion[];
  truncated: boolean;
  resolve: (target: string, fromPath: string, kind?: LinkKind) => string | null;
  /** The diff shown first: the latest molt against the version before it (else the latest change); null with one version. */
  diff: { from: string; to: string; patch: string; tooBig: boolean } | null;
}

/** The versions a person can pick for a diff or a restore: each commit that left a text different from the one before. */
function pickable(versions: SkillVersion[]): SkillVersion[] {
  return versions.filter((v) => v.blob !== null && !v.sameText);
}

/** A skill by the name in its URL (`skills/<name>.md`, else the archive's); null when there is none. */
export async function fetchSkill(name: string): Promise<SkillView | null> {
  const vault = await getVault();
  const decoded = safeDecode(name);
  // One listing for both the lookup and the link resolver.
  const files = await vault.listFiles();
  const path = await findSkillPath(vault, decoded, files);
  if (!path) return null;
  const [note, history, resolver] = await Promise.all([vault.readNote(path), skillHistory(vault, path), vault.linkResolver(files)]);
  const versions = pickable(history.versions);
  const at = Math.max(
    0,
    versions.findIndex((v) => v.op === 'molt'),
  );
  let diff: SkillView['diff'] = null;
  if (at + 1 < versions.length) {
    const [from, to] = [versions[at + 1].sha, versions[at].sha];
    const result = await skillDiff(vault, history, from, to, CHANGELOG_MAX_PATCH);
    diff = { from, to, patch: result.patch, tooBig: result.truncated };
  }
  return {
    name: decoded,
    path,
    note,
    archived: isArchivedSkill(vault, path, note.frontmatter),
    person: vault.person,
    versions: history.versions,
    truncated: history.truncated,
    resolve: (target, fromPath, kind) => resolver.resolve(target, fromPath, kind),
    diff,
  };
}

/** The diff between two versions of the skill `name` (by commit); `not_found` when either is not one of its versions. */
export async function fetchSkillDiff(name: string, from: string, to: string): Promise<{ patch: string; tooBig: boolean }> {
  const vault = await getVault();
  const path = await findSkillPath(vault, name);
  if (!path) throw new VaultError('not_found', `No skill ${name} in this vault; it may have been renamed or removed. Go back to the skills list.`);
  const result = await skillDiff(vault, await skillHistory(vault, path), from, to, CHANGELOG_MAX_PATCH);
  return { patch: result.patch, tooBig: result.truncated };
}
