import { findSkillPath, restoreSkillVersion, type SkillHistory, skillHistory, type SkillVersion, skillVersionText, VaultError } from '../lib/vault';
import { openCliVault, printJson, UsageError, type Io } from './shared';

type Values = Record<string, string | boolean | undefined>;

function when(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** The version a `--version N` (the newest commit with that version) or `--commit SHA` names. */
function pick(history: SkillHistory, values: Values): SkillVersion {
  const texts = history.versions.filter((v) => v.blob !== null);
  if (typeof values.commit === 'string') {
    const found = texts.find((v) => v.sha === values.commit || ((values.commit as string).length >= 7 && v.sha.startsWith(values.commit as string)));
    if (!found) throw new VaultError('not_found', `No version of ${history.path} at commit ${values.commit}; see lucid skill history.`);
    return found;
  }
  if (typeof values.version === 'string') {
    const wanted = Number(values.version);
    const found = texts.find((v) => v.version === wanted);
    if (!found) throw new VaultError('not_found', `${history.path} has no version ${values.version}; see lucid skill history.`);
    return found;
  }
  const current = texts[0];
  if (!current) throw new VaultError('not_found', `${history.path} has no committed version yet.`);
  return current;
}

/** `skill history|show|restore`: a skill's versions from git, one version's text, and a restore as a molt. */
export const skillCommands = {
  skill: {
    summary: "A skill's versions from git, one version's text, or restore one (a new molt)",
    usage:
      'lucid skill history NAME [--vault DIR] [--json]\n' +
      'lucid skill show NAME [--version N | --commit SHA] [--vault DIR] [--json]\n' +
      'lucid skill restore NAME (--version N | --commit SHA) --reason R [--expected-hash H] [--vault DIR] [--json]\n\n' +
      '  NAME is the file name in skills/ (or skills/archive/) without .md. History follows renames and moves.\n' +
      '  restore makes a new molt as you, whose text is that version (version + 1); with --expected-hash\n' +
      '  (sha256 of the skill as you read it) a molt that landed since makes it a conflict that changes nothing.',
    options: {
      vault: { type: 'string' as const, short: 'v' },
      json: { type: 'boolean' as const },
      reason: { type: 'string' as const, short: 'r' },
      version: { type: 'string' as const },
      commit: { type: 'string' as const },
      'expected-hash': { type: 'string' as const },
    },
    async run(io: Io, values: Values, positionals: string[]) {
      const [verb, name, ...rest] = positionals;
      if (!['history', 'show', 'restore'].includes(verb ?? '') || !name || rest.length > 0) {
        throw new UsageError('skill needs history, show or restore and a skill name, e.g. lucid skill history triage-flaky-tests');
      }
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const path = await findSkillPath(vault, name);
        if (!path) throw new VaultError('not_found', `No skill ${name} in ${vault.layout.skills}/ or ${vault.layout.skillsArchive}/.`);
        const history = await skillHistory(vault, path);
        if (verb === 'history') {
          if (values.json) printJson(io, history);
          else
            for (const v of history.versions) {
              const what = v.blob === null ? 'removed' : `v${v.version ?? '?'}`;
              const moved = v.renamedFrom ? ` (moved from ${v.renamedFrom})` : '';
              io.out(`${what.padEnd(8)} ${when(v.time)}  ${v.sha.slice(0, 7)}  ${v.actor}  ${v.op ?? 'commit'}${moved}  ${v.reason.split('\n')[0]}`);
            }
          return 0;
        }
        if (verb === 'show') {
          const chosen = pick(history, values);
          const text = await skillVersionText(vault, chosen);
          if (values.json) printJson(io, { path: chosen.path, commit: chosen.sha, version: chosen.version, text });
          else io.out(text);
          return 0;
        }
        if (typeof values.reason !== 'string' || values.reason.trim() === '') throw new UsageError('restore needs --reason: why this version comes back');
        if (values.version === undefined && values.commit === undefined) throw new UsageError('restore needs --version N or --commit SHA');
        const chosen = pick(history, values);
        const result = await restoreSkillVersion(vault, {
          path,
          commit: chosen.sha,
          reason: values.reason,
          expectedHash: values['expected-hash'] as string | undefined,
        });
        if (values.json) printJson(io, { ...result, edit_id: result.editId });
        else
          io.out(
            `Restored version ${result.restored ?? '?'} of ${path} as version ${result.version} (commit ${result.commit.slice(0, 7)}, edit ${result.editId}).`,
          );
        return 0;
      } finally {
        vault.close();
      }
    },
  },
};
