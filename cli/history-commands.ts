import { commitUncommitted, listUncommitted, planRevert, revertEdit, type RevertPlan } from '../lib/vault';
import { openCliVault, printJson, UsageError, type Io } from './shared';

type Values = Record<string, string | boolean | undefined>;

const vaultOption = { vault: { type: 'string' as const, short: 'v' } };
const jsonOption = { json: { type: 'boolean' as const } };
const reasonOption = { reason: { type: 'string' as const, short: 'r' } };

function printPlan(io: Io, plan: RevertPlan): void {
  const print = plan.ok ? io.out : io.err;
  print(plan.message);
  for (const blocker of plan.blockers) {
    if (blocker.kind === 'uncommitted') {
      io.err(`  ${blocker.path}: uncommitted changes`);
      continue;
    }
    io.err(`  ${blocker.path}: changed since by`);
    for (const e of blocker.laterEdits) io.err(`    ${e.commit.slice(0, 7)} ${e.edit ?? '-'} ${e.actor} ${e.op ?? 'commit'} ${e.subject}`);
  }
  if (plan.patch) io.out(plan.patch);
}

/** `revert`, `uncommitted` and `commit-uncommitted`: undoing an edit, and a person's own work on disk. */
export const historyCommands = {
  revert: {
    summary: 'Undo an edit (by its edit id) or a commit (by its full id), as your own edit in one commit',
    usage:
      'lucid revert EDIT_ID|COMMIT [--reason R] [--dry-run] [--vault DIR] [--json]\n\n' +
      '  Tries the revert on a temporary index first. When later edits changed the same lines, or a file\n' +
      '  involved has uncommitted changes, nothing changes: it says which edits or files are in the way and\n' +
      '  exits 1. A molt reverted is a new molt; an accept or reject reverted puts the proposal back in the\n' +
      '  inbox; a revert can itself be reverted. Merge commits, the init commit and commits that only touched\n' +
      '  the changelog are refused.\n\n' +
      '  --dry-run  print what the revert would do (and its patch) without changing anything',
    options: { ...vaultOption, ...jsonOption, ...reasonOption, 'dry-run': { type: 'boolean' as const } },
    async run(io: Io, values: Values, positionals: string[]) {
      if (positionals.length !== 1) throw new UsageError('revert needs one edit id or full commit id, e.g. lucid revert e7f3a9c2kq1mz');
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        if (values['dry-run']) {
          const plan = await planRevert(vault, positionals[0]);
          if (values.json) printJson(io, plan);
          else printPlan(io, plan);
          return plan.ok ? 0 : 1;
        }
        const result = await revertEdit(vault, { ref: positionals[0], reason: values.reason as string | undefined });
        if (values.json) printJson(io, { edit_id: result.editId, commit: result.commit, plan: result.plan });
        else
          io.out(
            `Reverted: ${result.plan.paths.join(', ')} (commit ${result.commit.slice(0, 7)}, edit ${result.editId}). Revert it with: lucid revert ${result.editId}`,
          );
        return 0;
      } finally {
        vault.close();
      }
    },
  },
  uncommitted: {
    summary: 'List the notes with changes nobody committed (with --diff, what changed)',
    usage: 'lucid uncommitted [--diff] [--vault DIR] [--json]',
    options: { ...vaultOption, ...jsonOption, diff: { type: 'boolean' as const } },
    async run(io: Io, values: Values) {
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const files = await listUncommitted(vault);
        if (values.json) printJson(io, files);
        else if (files.length === 0) io.out('Nothing uncommitted.');
        else
          for (const f of files) {
            io.out(`${f.status.padEnd(8)} ${f.path}`);
            if (values.diff && f.diff) io.out(f.diff);
          }
        return 0;
      } finally {
        vault.close();
      }
    },
  },
  'commit-uncommitted': {
    summary: 'Commit notes changed on disk (in Obsidian, say) as your own edit, in one commit',
    usage:
      'lucid commit-uncommitted PATH... | --all [--reason R] [--vault DIR] [--json]\n\n' +
      '  Commits the files exactly as they are on disk; never discards or rewrites them.',
    options: { ...vaultOption, ...jsonOption, ...reasonOption, all: { type: 'boolean' as const } },
    async run(io: Io, values: Values, positionals: string[]) {
      if (Boolean(values.all) === positionals.length > 0) throw new UsageError('commit-uncommitted needs the paths to commit, or --all (not both)');
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const paths = values.all ? (await listUncommitted(vault)).map((f) => f.path) : positionals;
        const result = await commitUncommitted(vault, { paths, reason: values.reason as string | undefined });
        if (values.json) printJson(io, result && { edit_id: result.editId, commit: result.commit, paths });
        else if (!result) io.out('Nothing uncommitted.');
        else io.out(`Committed ${paths.join(', ')} as ${vault.person} (commit ${result.commit.slice(0, 7)}, edit ${result.editId}).`);
        return 0;
      } finally {
        vault.close();
      }
    },
  },
};
