import { applyDreamRun, type DreamFindings, type DreamRun, openVault } from '../../lib/vault/index';
import { isolatedGitEnv } from './temp-vault';

/** Dream runs for the review's specs, made by the dream pass itself (applyDreamRun) from findings the spec writes. */

/** A skill note in VAULT-FORMAT's shape. */
export function skillText(name: string, version: number, trigger: string, steps: string[], extra: Record<string, string> = {}): string {
  const fields = Object.entries(extra)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('');
  return `---\ntype: skill\nname: ${name}\nversion: ${version}\ntrigger: ${trigger}\nlast_updated: 2026-11-10\n${fields}---\n# ${name}\n\n${steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}\n`;
}

/** Findings with only the given parts (the rest empty), as the finder returns them. */
export function findings(parts: Partial<DreamFindings>): DreamFindings {
  return { skills: 0, duplicates: [], stale: [], inconsistent: [], ...parts };
}

/** Runs the dream pass's `--apply` on the vault at `root` (opened for this alone) with `found`; returns the run. */
export async function makeDreamRun(root: string, found: DreamFindings, env: Record<string, string | undefined> = isolatedGitEnv()): Promise<DreamRun> {
  const vault = await openVault({ root, env });
  try {
    const run = await applyDreamRun(vault, found);
    if (run.skipped.length > 0) throw new Error(`the dream pass skipped changes: ${run.skipped.map((s) => s.why).join('; ')}`);
    return run;
  } finally {
    vault.close();
  }
}
