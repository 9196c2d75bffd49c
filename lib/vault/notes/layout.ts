import nodePath from 'node:path';
import { z } from 'zod';
import { VaultError } from '../errors';
import { nodeFs, type VaultFs } from '../fs';
import { normalizeVaultPath } from './paths';

/** Where each part of Lucid's layout lives in a vault; `lucid.json` overrides the defaults. */
export const layoutSchema = z.object({
  inbox: z.string().default('inbox'),
  people: z.string().default('people'),
  projects: z.string().default('projects'),
  decisions: z.string().default('decisions'),
  sessions: z.string().default('sessions'),
  skills: z.string().default('skills'),
  skillsArchive: z.string().default('skills/archive'),
  reports: z.string().default('reports'),
  evalQuestions: z.string().default('evals/questions'),
  evalRuns: z.string().default('evals/runs'),
  changelog: z.string().default('changelog.md'),
  changelogArchive: z.string().default('changelog'),
  agents: z.string().default('AGENTS.md'),
});
export type VaultLayout = z.infer<typeof layoutSchema>;

const lucidConfigSchema = z.object({
  version: z.literal(1).default(1),
  paths: layoutSchema.default(layoutSchema.parse({})),
});

/** The layout a vault uses when it has no `lucid.json`. */
export const DEFAULT_LAYOUT: VaultLayout = layoutSchema.parse({});

/** The file that records where the layout lives when not at the defaults. */
export const CONFIG_FILE = 'lucid.json';

/** Folders whose notes search leaves out unless asked (the changelog, the inbox, evaluations). */
export function systemPrefixes(layout: VaultLayout): string[] {
  return [layout.changelog, `${layout.changelogArchive}/`, `${layout.inbox}/`, `${layout.evalQuestions.split('/')[0]}/`];
}

/** True for the changelog and its monthly archives (`changelog/YYYY-MM.md`): written by Lucid only. */
export function isChangelogPath(layout: VaultLayout, path: string): boolean {
  if (path === layout.changelog) return true;
  const prefix = `${layout.changelogArchive}/`;
  return path.startsWith(prefix) && /^\d{4}-\d{2}\.md$/.test(path.slice(prefix.length));
}

/** Reads `lucid.json`; a broken one is an error that names the file, never silently the defaults. */
export function readLayout(root: string, fs: Pick<VaultFs, 'existsSync' | 'readFileSync'> = nodeFs): VaultLayout {
  const file = nodePath.join(root, CONFIG_FILE);
  if (!fs.existsSync(file)) return DEFAULT_LAYOUT;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file).toString('utf8'));
  } catch (error) {
    throw new VaultError('invalid_input', `${CONFIG_FILE} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = lucidConfigSchema.safeParse(raw);
  if (!parsed.success) throw new VaultError('invalid_input', `${CONFIG_FILE} is not a valid Lucid configuration: ${parsed.error.issues[0]?.message}`);
  for (const value of Object.values(parsed.data.paths)) normalizeVaultPath(value);
  return parsed.data.paths;
}
