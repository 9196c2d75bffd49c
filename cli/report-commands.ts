import { isIsoWeek, isoWeekOf, renderWeekReport, writeReport } from '../lib/vault';
import { openCliVault, printJson, UsageError, type Io } from './shared';

type Values = Record<string, string | boolean | undefined>;

const vaultOption = { vault: { type: 'string' as const, short: 'v' } };
const jsonOption = { json: { type: 'boolean' as const } };

/** `report`: "What the agents did this week", printed or written to the vault as a report note. */
export const reportCommands = {
  report: {
    summary: 'Print what the agents did in a week (with --write, save it as a report note in one commit)',
    usage:
      'lucid report [--week YYYY-Www] [--write] [--machine M] [--person NAME] [--vault DIR] [--json]\n\n' +
      "  Prints the week's report (default: this week, in this machine's time zone): sessions per agent,\n" +
      "  the notes they changed, people's corrections, molts, pending inbox proposals and failed protocol\n" +
      '  checks, with links that work in Obsidian; ready to paste into a team chat.\n\n' +
      '  --week   an ISO week such as 2026-W48\n' +
      "  --machine, --person  only the work done on that machine (Lucid-Machine) or at that person's vault\n" +
      '  --write  save it to reports/<week>.md as your edit (one commit, op report). Exporting again\n' +
      '           updates the same note, and commits only when the text changed. A version of the\n' +
      '           report someone edited is replaced, and stays in history (lucid log --path).',
    options: {
      ...vaultOption,
      ...jsonOption,
      week: { type: 'string' as const },
      write: { type: 'boolean' as const },
      machine: { type: 'string' as const },
      person: { type: 'string' as const },
    },
    async run(io: Io, values: Values) {
      const given = values.week;
      if (given !== undefined && !isIsoWeek(given)) {
        throw new UsageError(`--week must be an ISO week such as 2026-W48, not "${String(given)}"`, 'weeks 01 to 52, or 53 in the years that have it');
      }
      const origin = { machine: values.machine as string | undefined, person: values.person as string | undefined };
      if (values.write && (origin.machine || origin.person)) {
        throw new UsageError("--write saves the whole team's report: leave out --machine and --person");
      }
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const week = (given as string | undefined) ?? isoWeekOf(vault.clock());
        if (!values.write) {
          const report = await renderWeekReport(vault, week, origin);
          if (values.json) printJson(io, { week, ...report });
          else io.out(report.body);
          return 0;
        }
        const written = await writeReport(vault, week, vault.person);
        if (values.json) printJson(io, { week, ...written });
        else if (written.unchanged) {
          io.out(
            `${written.path} already holds this report; nothing changed, no commit${written.commit ? ` (last commit ${written.commit.slice(0, 7)})` : ''}.`,
          );
        } else {
          io.out(`${written.created ? 'Wrote' : 'Updated'} ${written.path} (commit ${written.commit?.slice(0, 7)}, edit ${written.editId}).`);
          if (written.replacedVersion) {
            io.out(`It replaced a version someone edited; that version stays in history (commit ${written.replacedVersion.slice(0, 7)}).`);
          }
        }
        return 0;
      } finally {
        vault.close();
      }
    },
  },
};
