import { type SyncReport, type SyncStep, syncExclusively } from '../lib/vault';
import { openCliVault, printJson, type Io } from './shared';

type Values = Record<string, string | boolean | undefined>;

const STEP_TEXT: Record<SyncStep, string> = {
  fetch: 'fetching',
  'commit-uncommitted': 'committing your uncommitted notes first, as yours',
  integrate: 'integrating',
  push: 'pushing',
};

/** The short human summary of a sync, one line and then one line per thing the person should look at. */
function summary(report: SyncReport): string[] {
  const tracking = `${report.remote}/${report.branch}`;
  const came = report.received === 0 ? '' : `${report.received} commit${report.received === 1 ? '' : 's'} from ${tracking} `;
  const what: Record<SyncReport['outcome'], string> = {
    'up-to-date': `Up to date with ${tracking}.`,
    'fast-forward': `Brought in ${came}(fast-forward).`,
    merged: `Merged ${came}(merge commit ${report.head.slice(0, 7)}).`,
    pushed: `Pushed your commits to ${tracking}.`,
  };
  const out = [`${what[report.outcome]}${report.pushed && report.outcome !== 'pushed' ? ' Pushed.' : ''}`];
  if (report.committedFirst.length > 0) out.push(`Committed first as yours: ${report.committedFirst.join(', ')}`);
  for (const c of report.conflicts) out.push(`Both sides changed ${c.path}: the remote's version was kept, this vault's is in ${c.inbox} (lucid inbox).`);
  for (const r of report.refused) out.push(`Refused ${r.path}: ${r.why}`);
  for (const w of report.warnings) out.push(`Note ${w.path}: ${w.why}`);
  // Paths and link targets come from the remote: a control character in them must not drive the terminal.
  return out.map((line) => line.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?'));
}

/** `sync`: the vault shared through its git remote. */
export const syncCommands = {
  sync: {
    summary: "Sync the vault with its git remote: fetch, bring the others' edits in without losing any, push",
    usage:
      'lucid sync [--vault DIR] [--remote NAME] [--no-push] [--json]\n\n' +
      "  Fetches the remote's branch (the upstream's, else the same name on origin), commits your uncommitted\n" +
      '  notes as yours, then fast-forwards or makes a merge commit (history is never rewritten). A note both\n' +
      "  sides changed keeps the remote's version; this vault's goes to the inbox (flag conflict). Then pushes.\n" +
      "  Uses git's own credentials (ssh-agent, a credential helper); Lucid stores none and never prompts.\n" +
      '  Progress goes to stderr, a summary to stdout (--json: the whole report).\n\n' +
      '  --remote NAME  the remote to sync with (default: the branch upstream, else origin)\n' +
      '  --no-push      fetch and integrate only',
    options: {
      vault: { type: 'string' as const, short: 'v' },
      remote: { type: 'string' as const },
      'no-push': { type: 'boolean' as const },
      json: { type: 'boolean' as const },
    },
    async run(io: Io, values: Values) {
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        // Through the lock a schedule and the Sync button take: two syncs of one vault never run side by side.
        const report = await syncExclusively(vault, {
          remote: values.remote as string | undefined,
          push: !values['no-push'],
          onProgress: (step, detail) => io.err(`${STEP_TEXT[step]}${detail ? ` ${detail}` : ''}…`),
        });
        if (values.json) printJson(io, report);
        else for (const line of summary(report)) io.out(line);
        return 0;
      } finally {
        await vault.close();
      }
    },
  },
};
