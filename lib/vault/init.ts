import nodePath from 'node:path';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { CONFIG_FILE, DEFAULT_LAYOUT, type VaultLayout } from './config';
import { VaultError } from './errors';
import { hashBytes } from './frontmatter';
import { gitConfig, runGit, runGitSilent } from './git';
import type { Clock, IdSource } from './ids';
import { createLinkResolver, parseLinks, type LinkKind } from './links';
import { parseFrontmatter } from './frontmatter';
import { memoryProtocol } from './protocol';
import { openVault, type FileChange, type OpenVaultOptions } from './vault';

/** The subject of the commit that saves a folder's existing files when `lucid init` makes it a repository. */
export const SNAPSHOT_SUBJECT = 'Snapshot of the vault before Lucid';

/** Lines `lucid init` makes sure the vault's .gitignore has. */
export const GITIGNORE_LINES = ['.lucid/', '.lucid-tmp-*', '.obsidian/workspace.json', '.obsidian/workspace-mobile.json', '.trash/'];

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
export async function initVault(options: Omit<OpenVaultOptions, 'root'> & { dir: string; clock?: Clock; ids?: IdSource }): Promise<InitReport> {
  const root = nodePath.resolve(options.dir);
  if (existsSync(root) && !statSync(root).isDirectory()) throw new VaultError('invalid_path', `${root} is a file, not a folder.`);
  mkdirSync(root, { recursive: true });

  let gitInitialized = false;
  let snapshotCommit: string | null = null;
  const probe = { root, env: options.env };
  const isRepo = await runGit(probe, ['rev-parse', '--show-toplevel']).then(() => true, () => false);
  if (!isRepo) {
    await runGitSilent(probe, ['init', '-q']);
    gitInitialized = true;
  }

  const existing = listAll(root);
  const configPath = nodePath.join(root, CONFIG_FILE);
  const hasConfig = existsSync(configPath);
  const { layout, renamed } = hasConfig ? { layout: (await openVault({ ...options, root })).layout, renamed: [] } : planLayout(root, existing);

  if (gitInitialized) {
    const people = existing.files.filter((f) => !f.startsWith('.git/'));
    if (people.length > 0) {
      snapshotCommit = await snapshotExisting(root, options.env, options.fallbackUser ?? 'unknown', (options.clock ?? (() => new Date()))());
    }
  }

  const vault = await openVault({ ...options, root, layout });
  const changes: FileChange[] = [];
  const created: string[] = [];
  for (const key of FOLDER_KEYS) {
    const folder = layout[key];
    const keep = `${folder}/.gitkeep`;
    if (!existsSync(nodePath.join(root, folder))) {
      changes.push({ path: keep, content: '', expectedHash: null });
      created.push(`${folder}/`);
    }
  }
  if (!existsSync(nodePath.join(root, layout.agents))) {
    changes.push({ path: layout.agents, content: memoryProtocol(layout), expectedHash: null });
    created.push(layout.agents);
  }
  if (!hasConfig && renamed.length > 0) {
    changes.push({ path: CONFIG_FILE, content: `${JSON.stringify({ version: 1, paths: layout }, null, 2)}\n`, expectedHash: null });
    created.push(CONFIG_FILE);
  }
  const gitignorePath = nodePath.join(root, '.gitignore');
  const gitignore = existsSync(gitignorePath) ? readFileSync(gitignorePath, 'utf8') : null;
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
  const changelogMissing = !existsSync(nodePath.join(root, layout.changelog));
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
  return { root: vault.root, gitInitialized, snapshotCommit, commit, created, renamed, layout };
}

/** Every file and folder under root (vault-relative), without .git/. */
function listAll(root: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
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
export function planLayout(root: string, existing: { files: string[]; folders: string[] }): { layout: VaultLayout; renamed: InitReport['renamed'] } {
  const layout: VaultLayout = { ...DEFAULT_LAYOUT };
  const renamed: InitReport['renamed'] = [];
  const taken = new Set([...existing.files, ...existing.folders]);
  const takenLower = new Map<string, string>();
  for (const name of taken) takenLower.set(name.toLowerCase(), name);
  const notes = existing.files.filter((f) => f.toLowerCase().endsWith('.md'));
  const links: { from: string; target: string; kind: LinkKind }[] = [];
  for (const from of notes) {
    try {
      const text = readFileSync(nodePath.join(root, from), 'utf8');
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
  const keys = Object.keys(layout) as (keyof VaultLayout)[];
  for (const key of keys) {
    const wanted = layout[key];
    const isFile = wanted.endsWith('.md');
    let candidate = wanted;
    let why: string | null = null;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const parent = candidate.includes('/') ? candidate.slice(0, candidate.lastIndexOf('/')) : '';
      const clash = collides(candidate) ?? (parent && key !== 'skillsArchive' ? collides(parent) : null);
      const captured = isFile && !taken.has(candidate) ? capturesLink(candidate) : undefined;
      if (!clash && !captured) break;
      why = clash
        ? `"${clash}" already exists and differs only in case`
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

async function snapshotExisting(root: string, env: Record<string, string | undefined>, fallbackName: string, date: Date): Promise<string> {
  const repo = { root, env };
  const exclude = nodePath.join(root, '.git', 'info', 'exclude');
  mkdirSync(nodePath.dirname(exclude), { recursive: true });
  const { appendFileSync } = await import('node:fs');
  appendFileSync(exclude, `\n${GITIGNORE_LINES.map((l) => `/${l}`).join('\n')}\n`);
  await runGitSilent(repo, ['add', '-A', '--', '.']);
  const identity: string[] = [];
  if (!(await gitConfig(repo, 'user.name'))) identity.push('-c', `user.name=${fallbackName}`);
  if (!(await gitConfig(repo, 'user.email'))) identity.push('-c', `user.email=${fallbackName.replace(/[^A-Za-z0-9._-]+/g, '.')}@localhost`);
  const stamp = `${Math.floor(date.getTime() / 1000)} +0000`;
  await runGitSilent(repo, [...identity, 'commit', '-q', '--no-verify', '-m', `${SNAPSHOT_SUBJECT}\n\nThe files as they were when \`lucid init\` made this folder a git repository.`], { GIT_AUTHOR_DATE: stamp, GIT_COMMITTER_DATE: stamp });
  return (await runGit(repo, ['rev-parse', 'HEAD'])).trim();
}
