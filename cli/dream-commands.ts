import { applyDreamRun, DEFAULT_STALE_DAYS, findDreamCandidates, type DreamFindings, type DreamProgress, type DreamRun } from '../lib/vault';
import { openCliVault, printJson, shellQuote, statusLine, UsageError, type Io } from './shared';

type Values = Record<string, string | boolean | undefined>;

const PHASES: Record<DreamProgress['phase'], string> = {
  read: 'reading skills',
  history: 'reading their history',
  compare: 'comparing skills',
  apply: 'committing changes to the dream branch',
  land: 'landing changes',
};

/** Progress on a terminal: one line, rewritten in place. */
export function progressLine(io: Io & { isTTY?: boolean }): { update: (p: DreamProgress) => void; done: () => void } {
  const line = statusLine(io);
  return { update: (p) => line.show(`dream: ${PHASES[p.phase]} ${p.done}/${p.total}`, { now: p.done >= p.total }), done: line.done };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function printFindings(io: Io, f: DreamFindings, staleDays: number): void {
  io.out(
    `${plural(f.skills, 'skill')}: ${plural(f.duplicates.length, 'duplicate pair')}, ${f.stale.length} stale, ${plural(f.inconsistent.length, 'inconsistent field')}.`,
  );
  if (f.duplicates.length > 0) {
    io.out('\nDuplicate or overlapping skills (score, survivor <- merged into it):');
    for (const d of f.duplicates) {
      io.out(`  ${d.score.toFixed(2)}  ${d.a} <- ${d.b}`);
      for (const e of d.evidence) io.out(`        ${e}`);
    }
  }
  if (f.stale.length > 0) {
    io.out(`\nStale (no session used them for ${staleDays} days or more):`);
    for (const s of f.stale) io.out(`  ${s.skill}  ${s.lastUsed ? `last used ${s.lastUsed}` : 'never used'} (${s.days} days)`);
  }
  if (f.inconsistent.length > 0) {
    io.out('\nInconsistent fields:');
    for (const i of f.inconsistent) {
      const fix = i.fix
        ? `fix: ${Object.entries(i.fix)
            .map(([k, v]) => `${k}: ${String(v)}`)
            .join(', ')}`
        : 'a person must fix it';
      io.out(`  ${i.skill}  ${i.field}: ${i.problem} (${fix})`);
    }
  }
}

function printRun(io: Io, run: DreamRun, vault: string | null): void {
  if (run.changes.length === 0) io.out('\nNothing to change: no branch was made.');
  else {
    io.out(
      `\nMade branch ${run.branch} on ${run.base.slice(0, 7)} with ${plural(run.changes.length, 'change')} (your branch, its files and its index are untouched):`,
    );
    for (const c of run.changes) io.out(`  ${c.sha.slice(0, 7)} ${c.op.padEnd(7)} ${c.paths.join(', ')}`);
    io.out(
      `Review them with: lucid dream show ${run.runId}${vault ? ` --vault ${shellQuote(vault)}` : ''} (--diff for the patches), or on the dashboard's /dream page.`,
    );
    io.out(`Land the ones you want with lucid dream land ${run.runId} CHANGE... (or --all); nothing changes on your branch until you do.`);
  }
  for (const s of run.skipped) io.err(`Left out (${s.op}): ${s.why}`);
}

/** `lucid dream`: the dream pass's findings, and with --apply its branch. */
export const dreamCommands = {
  dream: {
    summary: 'Find duplicate, stale and inconsistent skills (with --apply, propose the fixes on a branch dream/<run id>)',
    usage:
      'lucid dream [--vault DIR] [--stale-days N] [--apply] [--json]\n\n' +
      '  Finds skills that look like the same procedure (a score and the evidence for each pair), skills no\n' +
      `  session used for N days (default ${DEFAULT_STALE_DAYS}, counted to the vault's newest commit), and inconsistent fields\n` +
      '  (a version its molts do not explain, a missing trigger, a name that is not the file name). Changes nothing.\n\n' +
      '  --apply  make the changes on a new branch dream/<run id>, one commit per change, without switching\n' +
      '           branches or touching your files: merges (the survivor molts to the union of both procedures),\n' +
      '           stale skills moved to the skills archive, fixes as molts. Nothing is ever deleted.',
    options: {
      vault: { type: 'string' as const, short: 'v' },
      json: { type: 'boolean' as const },
      apply: { type: 'boolean' as const },
      'stale-days': { type: 'string' as const },
    },
    async run(io: Io, values: Values) {
      const given = values['stale-days'];
      const staleDays = given === undefined ? undefined : Number(given);
      if (staleDays !== undefined && (typeof given !== 'string' || !/^\d+$/.test(given) || staleDays < 1 || staleDays > 36_500)) {
        throw new UsageError(`--stale-days must be a whole number of days from 1 to 36500, not "${String(given)}"`);
      }
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const progress = progressLine(io);
        const findings = await findDreamCandidates(vault, { staleDays, onProgress: progress.update });
        progress.done();
        if (findings.skills === 0) {
          const message = `No skills in ${vault.layout.skills}/ yet, so the dream pass has nothing to tidy. Agents write skills with the molt_skill tool.`;
          if (values.json) printJson(io, { ...findings, message });
          else io.out(message);
          return 0;
        }
        const applying = progressLine(io);
        const run = values.apply ? await applyDreamRun(vault, findings, { onProgress: applying.update }) : null;
        applying.done();
        if (values.json) {
          printJson(io, run ? { findings, run } : findings);
          return 0;
        }
        printFindings(io, findings, staleDays ?? DEFAULT_STALE_DAYS);
        const found = findings.duplicates.length + findings.stale.length + findings.inconsistent.length;
        if (run) printRun(io, run, (values.vault as string | undefined) ? vault.root : null);
        else if (found === 0) io.out('\nThe skills are tidy: nothing to change.');
        else io.out(`\nNothing was changed. To propose these changes on a branch for review: lucid dream --apply --vault ${shellQuote(vault.root)}`);
        return 0;
      } finally {
        vault.close();
      }
    },
  },
};
