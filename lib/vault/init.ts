import nodePath from 'node:path';
import os from 'node:os';
import { CONFIG_FILE, DEFAULT_LAYOUT, type VaultLayout } from './notes/layout';
import { VaultError, isVaultError } from './errors';
import { hashBytes } from './notes/frontmatter';
import { nodeFs, type VaultFs } from './fs';
import { SNAPSHOT_SUBJECT, trailerGrep, TRAILER } from './git/commit-message';
import { gitConfig, gitSucceeds, runGit, type GitTarget } from './git/repo';
import { systemClock, type Clock, type IdSource } from './ids';
import { createLinkResolver } from './notes/link-resolver';
import { parseLinks, type LinkKind } from './notes/links';
import { parseFrontmatter } from './notes/frontmatter';
import { memoryProtocol } from './agents/protocol';
import { describeSecrets, findSecrets } from './write/secrets';
import { openVault, type OpenVaultOptions, type Vault } from './vault';
import { readLayout } from './notes/layout';
import { assertStateDir } from './write/confine';
import type { FileChange } from './write/edit-types';

/** Lines `lucid init` makes sure the vault's .gitignore has. */
const GITIGNORE_LINES = ['.lucid/', '.lucid-tmp-*', '.obsidian/workspace.json', '.obsidian/workspace-mobile.json', '.trash/'];

/** What `lucid init` did. */
export interface InitReport {
  root: string;
  gitInitialized: boolean;
  /** The commit of the person's existing files, when init had to create the repository. */
  snapshotCommit: string | null;
  commit: string | null;
  created: string[];
  /** Layout entries that were given another name, and why. */
  renamed: { key: keyof VaultLayout; from: string; to: string; why: string }[];
  /** Files left out of the snapshot commit, and why (dot-files, what looks like a secret). */
  leftOut: { path: string; why: string }[];
  /** The repository's top folder when the vault is a folder inside a larger repository. */
  enclosingRepo: string | null;
  layout: VaultLayout;
}

const FOLDER_KEYS = ['inbox', 'people', 'projects', 'decisions', 'sessions', 'skills', 'skillsArchive', 'reports', 'evalQuestions', 'evalRuns'] as const;

/**
 * Installs Lucid's layout into a folder (new or an existing vault): git init where needed, the
 * folders, AGENTS.md, changelog.md, lucid.json when a name had to change, .gitignore lines, in
 * one commit. Never changes or moves an existing note, and never changes what an existing link
 * resolves to: a name that collides ignoring case, or that would capture a link, gets another
 * name recorded in lucid.json. A second run changes nothing.
 */
export async function initVault(
  options: Omit<OpenVaultOptions, 'root'> & {
    dir: string;
    clock?: Clock;
    ids?: IdSource;
    force?: boolean;
    /** Make the folder a repository of its own (branch main) even inside another one, as the demo does. */
    ownRepository?: boolean;
  },
): Promise<InitReport> {
  const fs = options.fs ?? nodeFs;
  const root = nodePath.resolve(options.dir);
  if (fs.existsSync(root) && !fs.statSync(root).isDirectory()) throw new VaultError('invalid_path', `${root} is a file, not a folder.`);
  if (!options.force && (root === nodePath.parse(root).root || root === nodePath.resolve(os.homedir()))) {
    throw new VaultError(
      'invalid_input',
      `Refusing to make ${root} a vault: it is your ${root === os.homedir() ? 'home folder' : 'file-system root'}, and every file under it would be committed. Name the vault's own folder (or pass --force).`,
    );
  }
  fs.mkdirSync(root);
  // Before git runs or anything is written: a committed `.lucid` link would take Lucid's state elsewhere.
  assertStateDir(fs, root);

  let gitInitialized = false;
  let snapshotCommit: string | null = null;
  const probe: GitTarget = { root, env: options.env, run: options.git };
  const isOwnRepo = fs.existsSync(nodePath.join(root, '.git'));
  const isRepo = options.ownRepository ? isOwnRepo : await gitSucceeds(probe, ['rev-parse', '--show-toplevel']);
  if (!isRepo) {
    await runGit(probe, options.ownRepository ? ['init', '-q', '-b', 'main'] : ['init', '-q']);
    gitInitialized = true;
  }

  const existing = listAll(fs, root);
  const configPath = nodePath.join(root, CONFIG_FILE);
  // A vault Lucid already installed keeps its layout: its changelog.md and AGENTS.md are Lucid's own.
  const installed = fs.existsSync(configPath) || (!gitInitialized && (await hasInitCommit(probe)));
  const { layout, renamed } = installed ? { layout: readLayout(root, fs), renamed: [] } : planLayout(root, existing, fs);
  const top = (await runGit(probe, ['rev-parse', '--show-toplevel'])).trim();
  const enclosingRepo = nodePath.resolve(top) !== (await fs.realpath(root)) ? top : null;

  const leftOut: InitReport['leftOut'] = [];
  if (gitInitialized && existing.files.length > 0) {
    snapshotCommit = await snapshotExisting(fs, probe, options.fallbackUser ?? 'unknown', (options.clock ?? systemClock)(), leftOut);
  }

  const vault = await openVault({ ...options, root, layout });
  const changes: FileChange[] = [];
  const created: string[] = [];
  for (const key of FOLDER_KEYS) {
    const folder = layout[key];
    const keep = `${folder}/.gitkeep`;
    if (!fs.existsSync(nodePath.join(root, folder))) {
      changes.push({ path: keep, content: '', expectedHash: null });
      created.push(`${folder}/`);
    }
  }
  if (!fs.existsSync(nodePath.join(root, layout.agents))) {
    changes.push({ path: layout.agents, content: memoryProtocol(layout), expectedHash: null });
    created.push(layout.agents);
  }
  if (!installed && renamed.length > 0) {
    changes.push({ path: CONFIG_FILE, content: `${JSON.stringify({ version: 1, paths: layout }, null, 2)}\n`, expectedHash: null });
    created.push(CONFIG_FILE);
  }
  const gitignorePath = nodePath.join(root, '.gitignore');
  const gitignore = fs.existsSync(gitignorePath) ? fs.readFileSync(gitignorePath).toString('utf8') : null;
  const present = new Set((gitignore ?? '').split(/\r?\n/).map((l) => l.trim()));
  const missing = GITIGNORE_LINES.filter((l) => !present.has(l) && !present.has(`/${l}`));
  if (missing.length > 0) {
    const base = gitignore === null ? '' : gitignore.endsWith('\n') || gitignore === '' ? gitignore : `${gitignore}\n`;
    changes.push({
      path: '.gitignore',
      content: `${base}${gitignore === null ? '' : '\n'}# Lucid: local state and Obsidian's per-device files\n${missing.join('\n')}\n`,
      expectedHash: gitignore === null ? null : hashBytes(Buffer.from(gitignore, 'utf8')),
    });
    created.push('.gitignore');
  }
  const attributes = gitattributesChange(fs, root, layout);
  if (attributes) {
    changes.push(attributes);
    created.push('.gitattributes');
  }
  const changelogMissing = !fs.existsSync(nodePath.join(root, layout.changelog));
  let commit: string | null = null;
  if (changes.length > 0 || changelogMissing) {
    if (changes.length === 0) changes.push({ path: `${layout.inbox}/.gitkeep`, content: '' });
    const result = await vault.edit({
      actor: vault.person,
      op: 'init',
      path: layout.agents,
      reason: renamed.length > 0 ? `installed Lucid's layout; renamed ${renamed.map((r) => `${r.from} to ${r.to}`).join(', ')}` : "installed Lucid's layout",
      changes,
      skipValidation: true,
    });
    commit = result.commit;
    if (changelogMissing) created.push(layout.changelog);
  }
  vault.close();
  return { root: vault.root, gitInitialized, snapshotCommit, commit, created, renamed, leftOut, enclosingRepo, layout };
}

/** A gitattributes pattern for a vault path, anchored at the vault's folder: `?` stands for white space, which would end it. */
function attributePattern(path: string): string {
  return `/${path.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/\s/g, '?')}`;
}

/**
 * The lines `.gitattributes` needs so that the changelog only ever merges by union: every edit adds
 * a line at the top, so a person's plain `git revert` of an older edit, a merge or a pull would
 * otherwise conflict on it.
 */
export function changelogAttributes(layout: VaultLayout): string[] {
  return [`${attributePattern(layout.changelog)} merge=union`, `${attributePattern(layout.changelogArchive)}/*.md merge=union`];
}

/** The change that adds the missing changelog lines to `.gitattributes` (kept as it is otherwise), or null when none is missing. */
function gitattributesChange(fs: VaultFs, root: string, layout: VaultLayout): FileChange | null {
  const file = nodePath.join(root, '.gitattributes');
  const current = fs.existsSync(file) ? fs.readFileSync(file).toString('utf8') : null;
  // `changelog.md merge=union` written by hand (unanchored, as VAULT-FORMAT shows it) counts too.
  const normal = (line: string) => line.trim().replace(/\s+/g, ' ').replace(/^\//, '');
  const present = new Set((current ?? '').split(/\r?\n/).map(normal));
  const missing = changelogAttributes(layout).filter((l) => !present.has(normal(l)));
  if (missing.length === 0) return null;
  const base = current === null || current === '' ? '' : current.endsWith('\n') ? `${current}\n` : `${current}\n\n`;
  return {
    path: '.gitattributes',
    content: `${base}# Lucid: the changelog only gains lines, so merges, reverts and pulls keep the lines of both sides\n${missing.join('\n')}\n`,
    expectedHash: current === null ? null : hashBytes(Buffer.from(current, 'utf8')),
  };
}

/** The file in `.lucid/` that records that the one-time upgrade of an earlier install ran. */
const UPGRADE_MARK = 'upgraded-1.json';

/**
 * Brings a vault Lucid installed earlier up to what `lucid init` installs now, once per clone:
 * today the `.gitattributes` lines that make the changelog merge by union. One commit, op `init`,
 * by the person; nothing when Lucid is not installed here, the lines are there, or it ran before
 * (a person who then removes the lines is not overruled). Returns what it added.
 */
export async function upgradeInstall(vault: Vault): Promise<string[]> {
  const mark = nodePath.join(vault.stateDir(), UPGRADE_MARK);
  if (vault.fs.existsSync(mark) || !vault.fs.existsSync(nodePath.join(vault.root, vault.layout.changelog))) return [];
  // A person in the middle of editing .gitattributes: their edit is not committed for them; try next time.
  if ((await runGit(vault.repo, ['status', '--porcelain', '--', ':(literal).gitattributes'])).trim() !== '') return [];
  let change = gitattributesChange(vault.fs, vault.root, vault.layout);
  if (change) {
    try {
      await vault.edit({
        actor: vault.person,
        op: 'init',
        path: '.gitattributes',
        reason: 'upgraded the install: .gitattributes marks the changelog merge=union, so plain git revert, merge and pull never conflict on it',
        changes: [change],
        skipValidation: true,
      });
    } catch (error) {
      // Another process upgrading at the same moment: done when the lines are now there.
      if (!isVaultError(error, 'conflict') || gitattributesChange(vault.fs, vault.root, vault.layout)) throw error;
      change = null;
    }
  }
  try {
    vault.fs.writeNewFileSync(mark, `${JSON.stringify({ gitattributes: change ? 'added' : 'present' })}\n`);
  } catch {
    // Another process marked it first.
  }
  return change ? ['.gitattributes'] : [];
}

/** Every file and folder under root (vault-relative), without .git/. */
function listAll(fs: VaultFs, root: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir)) {
      if (entry.name === '.git') continue;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        folders.push(rel);
        if (!entry.name.startsWith('.')) walk(nodePath.join(dir, entry.name), rel);
      } else files.push(rel);
    }
  };
  walk(root, '');
  return { files, folders };
}

/**
 * Chooses the layout for a vault without lucid.json: the default names, except where a name
 * collides ignoring case with something else, or where a note Lucid adds would change what an
 * existing link resolves to.
 */
function planLayout(
  root: string,
  existing: { files: string[]; folders: string[] },
  fs: Pick<VaultFs, 'readFileSync'> = nodeFs,
): { layout: VaultLayout; renamed: InitReport['renamed'] } {
  const layout: VaultLayout = { ...DEFAULT_LAYOUT };
  const renamed: InitReport['renamed'] = [];
  const taken = new Set([...existing.files, ...existing.folders]);
  const takenLower = new Map<string, string>();
  for (const name of taken) takenLower.set(name.toLowerCase(), name);
  const notes = existing.files.filter((f) => f.toLowerCase().endsWith('.md'));
  const links: { from: string; target: string; kind: LinkKind }[] = [];
  for (const from of notes) {
    try {
      const text = fs.readFileSync(nodePath.join(root, from)).toString('utf8');
      const parsed = parseFrontmatter(text);
      for (const link of parseLinks(parsed.parts.body, parsed.ok ? parsed.data : undefined)) {
        if (link.target) links.push({ from, target: link.target, kind: link.kind });
      }
    } catch {
      // unreadable notes have no links to protect
    }
  }
  const before = createLinkResolver(existing.files);
  const capturesLink = (added: string) => {
    const after = createLinkResolver([...existing.files, added]);
    return links.find((l) => before.resolve(l.target, l.from, l.kind) !== after.resolve(l.target, l.from, l.kind));
  };
  const collides = (name: string) => {
    const hit = takenLower.get(name.toLowerCase());
    return hit !== undefined && hit !== name ? hit : null;
  };
  // A file Lucid would write (changelog.md, AGENTS.md) that already exists is the person's: never
  // adopted. Nor is a folder Lucid treats as its own (inbox, changelog archive, evaluations) that
  // already holds files; people/, projects/ and the like are adopted, that is what they are for.
  const ownedFolders = new Set<keyof VaultLayout>(['inbox', 'changelogArchive', 'evalQuestions', 'evalRuns']);
  const holdsFiles = (folder: string) => existing.files.some((f) => f.startsWith(`${folder}/`));
  const keys = Object.keys(layout) as (keyof VaultLayout)[];
  for (const key of keys) {
    const wanted = layout[key];
    const isFile = wanted.endsWith('.md');
    let candidate = wanted;
    let why: string | null = null;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const parent = candidate.includes('/') ? candidate.slice(0, candidate.lastIndexOf('/')) : '';
      const exact = taken.has(candidate) && (isFile || (ownedFolders.has(key) && holdsFiles(candidate))) ? candidate : null;
      const clash = exact ?? collides(candidate) ?? (parent && key !== 'skillsArchive' ? collides(parent) : null);
      const captured = isFile && !taken.has(candidate) ? capturesLink(candidate) : undefined;
      if (!clash && !captured) break;
      why = clash
        ? clash === candidate
          ? `"${clash}" already exists and is not Lucid's`
          : `"${clash}" already exists and differs only in case`
        : `a root ${candidate} would capture the link ${captured!.target} in ${captured!.from}`;
      candidate = alternative(wanted, attempt);
    }
    if (candidate !== wanted) {
      layout[key] = candidate;
      renamed.push({ key, from: wanted, to: candidate, why: why ?? 'name taken' });
    }
  }
  if (layout.skills !== DEFAULT_LAYOUT.skills && layout.skillsArchive === DEFAULT_LAYOUT.skillsArchive) {
    layout.skillsArchive = `${layout.skills}/archive`;
  }
  return { layout, renamed };
}

function alternative(name: string, attempt: number): string {
  const suffix = attempt === 0 ? '' : `-${attempt + 1}`;
  if (name.endsWith('.md')) return `lucid-${name.slice(0, -3).toLowerCase()}${suffix}.md`;
  const [head, ...rest] = name.split('/');
  return [`lucid-${head}${suffix}`, ...rest].join('/');
}

/** Whether Lucid already installed itself here (an `init` commit in the history). */
async function hasInitCommit(repo: GitTarget): Promise<boolean> {
  const out = await runGit(repo, ['log', '-1', '--format=%H', '-E', `--grep=${trailerGrep(TRAILER.op, 'init')}`, '--']).catch(() => '');
  return out.trim() !== '';
}

/** Dot-files never go into the snapshot, except the vault's own settings that are safe to share. */
const SNAPSHOT_EXCLUDES = [
  '/.*',
  '!/.obsidian/',
  '!/.gitignore',
  '!/.gitattributes',
  '/.obsidian/plugins/*/data.json',
  '/.obsidian/workspace*.json',
  '.DS_Store',
];

/**
 * Commits the files a folder already had, as they are, before Lucid adds its own: a plain commit by
 * the person. Dot-files and folders (`.env`, `.ssh/`) and plugin data are left out, and so is any
 * file that looks like it holds a secret (keys, tokens, private keys); each is listed in `leftOut`.
 */
async function snapshotExisting(fs: VaultFs, repo: GitTarget, fallbackName: string, date: Date, leftOut: InitReport['leftOut']): Promise<string | null> {
  const root = repo.root;
  const exclude = nodePath.join(root, '.git', 'info', 'exclude');
  fs.mkdirSync(nodePath.dirname(exclude));
  const lines = [...GITIGNORE_LINES.map((l) => `/${l}`), ...SNAPSHOT_EXCLUDES];
  fs.appendFileSync(exclude, `\n# lucid init: what the first snapshot leaves out\n${lines.join('\n')}\n`);
  const candidates = (await runGit(repo, ['ls-files', '-z', '--others', '--exclude-standard'])).split('\0').filter(Boolean);
  const secretLines: string[] = [];
  for (const file of candidates) {
    const abs = nodePath.join(root, file);
    let bytes: Buffer;
    try {
      if (fs.statSync(abs).size > 2 * 1024 * 1024) continue;
      bytes = fs.readFileSync(abs);
    } catch {
      continue;
    }
    if (bytes.subarray(0, 8192).includes(0)) continue;
    const findings = findSecrets(bytes.toString('utf8'));
    if (findings.length > 0) {
      leftOut.push({ path: file, why: `looks like it holds ${describeSecrets(findings)}` });
      secretLines.push(`/${file.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}`);
    }
  }
  if (secretLines.length > 0) fs.appendFileSync(exclude, `${secretLines.join('\n')}\n`);
  for (const entry of fs.readdirSync(root)) {
    if (entry.name.startsWith('.') && !['.git', '.obsidian', '.gitignore', '.gitattributes', '.lucid'].includes(entry.name)) {
      leftOut.push({ path: entry.isDirectory() ? `${entry.name}/` : entry.name, why: 'a hidden file or folder (never committed by init)' });
    }
  }
  await runGit(repo, ['add', '-A', '--', '.']);
  const staged = (await runGit(repo, ['diff', '--cached', '--name-only', '-z'])).split('\0').filter(Boolean);
  if (staged.length === 0) return null;
  const identity: string[] = [];
  if (!(await gitConfig(repo, 'user.name'))) identity.push('-c', `user.name=${fallbackName}`);
  if (!(await gitConfig(repo, 'user.email'))) identity.push('-c', `user.email=${fallbackName.replace(/[^A-Za-z0-9._-]+/g, '.')}@localhost`);
  const stamp = `${Math.floor(date.getTime() / 1000)} +0000`;
  await runGit(
    repo,
    [...identity, 'commit', '-q', '--no-verify', '-m', `${SNAPSHOT_SUBJECT}\n\nThe files as they were when \`lucid init\` made this folder a git repository.`],
    { GIT_AUTHOR_DATE: stamp, GIT_COMMITTER_DATE: stamp },
  );
  return (await runGit(repo, ['rev-parse', 'HEAD'])).trim();
}
