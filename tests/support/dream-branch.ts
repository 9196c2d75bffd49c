import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isolatedGitEnv } from './temp-vault';

/**
 * Dream branches made by hand with raw git, in the format agreed with the dream pass
 * (/work/interfaces-s24.md): `refs/heads/dream/<run id>` built on HEAD through a temporary index
 * and commit-tree/update-ref (HEAD, the index and the files untouched), one commit per change, each
 * a Lucid edit commit with its changelog line and the trailers Lucid-Actor: agent:dream, Lucid-Op,
 * Lucid-Edit, Lucid-Dream. The review's tests build runs with exactly the shapes they need.
 */

/** One change of a hand-made run: files written (text) or removed (null), a skill molt's trailer. */
export interface HandChange {
  op: 'merge' | 'archive' | 'molt';
  /** The note the change is about (commit subject). */
  path: string;
  reason: string;
  files: Record<string, string | null>;
  /** `Lucid-Molt` value, e.g. `deploy 2->3`. */
  molt?: string;
}

/** A run made by {@link makeDreamBranch}: its branch, base and changes (sha and edit id, in order). */
export interface HandRun {
  runId: string;
  branch: string;
  base: string;
  changes: { sha: string; id: string }[];
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');

/** A run id as the dream pass makes them: `YYYYMMDD-HHMMSS-<4 base36>`. */
export function handRunId(date = new Date(2026, 10, 20, 3, 0, 0)): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}-${pick(BASE36, 4)}`;
}

/** Builds the run on the vault at `root` (its current HEAD as base) and returns it; nothing but git objects and the new ref change. */
export function makeDreamBranch(root: string, changes: HandChange[], options: { runId?: string; date?: Date; changelog?: string } = {}): HandRun {
  const runId = options.runId ?? handRunId(options.date);
  const changelog = options.changelog ?? 'changelog.md';
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-dream-index-'));
  const env = { ...isolatedGitEnv(), GIT_INDEX_FILE: path.join(scratch, 'index') } as unknown as NodeJS.ProcessEnv;
  const git = (args: string[], input?: string) => execFileSync('git', args, { cwd: root, env, input, encoding: 'utf8' }).trim();
  try {
    const base = git(['rev-parse', '--verify', 'HEAD']);
    let parent = base;
    git(['read-tree', base]);
    const made: HandRun['changes'] = [];
    const seconds = Math.floor((options.date ?? new Date(2026, 10, 20, 3, 0, 0)).getTime() / 1000);
    changes.forEach((change, n) => {
      const id = `e${pick(BASE32, 12)}`;
      for (const [file, content] of Object.entries(change.files)) {
        if (content === null) git(['update-index', '--force-remove', '--', file]);
        else git(['update-index', '--add', '--cacheinfo', `100644,${git(['hash-object', '-w', '--stdin'], content)},${file}`]);
      }
      const current = git(['cat-file', '-p', `${parent}:${changelog}`]);
      const lines = current.split('\n');
      const line = `- 2026-11-20 03:0${n % 10} · agent:dream · ${change.op} [[${change.path.replace(/\.md$/, '')}]] · ${change.reason} ^${id}`;
      const first = lines.findIndex((l) => l.startsWith('- '));
      if (first === -1) lines.push('', line);
      else lines.splice(first, 0, line);
      const text = `${lines.join('\n')}\n`;
      git(['update-index', '--add', '--cacheinfo', `100644,${git(['hash-object', '-w', '--stdin'], text)},${changelog}`]);
      const tree = git(['write-tree']);
      const trailers = [
        `Lucid-Actor: agent:dream`,
        `Lucid-Op: ${change.op}`,
        `Lucid-Edit: ${id}`,
        ...(change.molt ? [`Lucid-Molt: ${change.molt}`] : []),
        `Lucid-Dream: ${runId}`,
      ];
      const message = `${change.op} ${change.path}\n\n${change.reason}\n\n${trailers.join('\n')}\n`;
      const stamp = `${seconds + n} +0000`;
      const who = {
        GIT_AUTHOR_NAME: 'agent:dream',
        GIT_AUTHOR_EMAIL: 'dream@agents.lucid.invalid',
        GIT_COMMITTER_NAME: 'agent:dream',
        GIT_COMMITTER_EMAIL: 'dream@agents.lucid.invalid',
      };
      const sha = execFileSync('git', ['commit-tree', tree, '-p', parent, '-F', '-'], {
        cwd: root,
        env: { ...env, ...who, GIT_AUTHOR_DATE: stamp, GIT_COMMITTER_DATE: stamp },
        input: message,
        encoding: 'utf8',
      }).trim();
      made.push({ sha, id });
      parent = sha;
    });
    git(['update-ref', `refs/heads/dream/${runId}`, parent, '0'.repeat(40)]);
    return { runId, branch: `dream/${runId}`, base, changes: made };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A skill note in VAULT-FORMAT's shape. */
export function skillText(name: string, version: number, trigger: string, steps: string[], extra: Record<string, string> = {}): string {
  const fields = Object.entries(extra)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('');
  return `---\ntype: skill\nname: ${name}\nversion: ${version}\ntrigger: ${trigger}\nlast_updated: 2026-11-10\n${fields}---\n# ${name}\n\n${steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}\n`;
}
