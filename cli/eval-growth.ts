import { evalGrowth as measureGrowth, strategyByName, type GrowthProgress, type GrowthReport } from '../lib/vault';
import { openCliVault, printJson, statusLine, UsageError, type Io } from './shared';

/** `lucid eval growth`'s help text. */
export const evalGrowthUsage =
  'lucid eval growth [--vault DIR] [--set NAME] [--commits N] [--strategies a,b] [--json]\n\n' +
  '  Replays a question set as the vault grew: at N earlier commits spread over its history (default 4)\n' +
  '  and at HEAD, then on a copy of HEAD with 1x, 3x and 10x its notes added as filler notes made from\n' +
  "  the vault's own words. Each commit is read in a temporary clone: the vault itself is never checked\n" +
  '  out, changed or committed to. A question whose gold notes did not exist yet at a commit is left out\n' +
  '  there and counted. Prints recall@5 (with its 95% interval) per point and strategy.\n\n' +
  '  --set NAME    the question set (needed when the vault has more than one)\n' +
  '  --commits N   earlier commits to replay (default 4; 0 for HEAD and the filler only)\n' +
  '  --strategies  the strategies to measure, comma-separated (default: all of them)';

type Values = Record<string, string | boolean | undefined>;

/** The options `eval growth` adds to the `eval` verb's (main.ts parses them; --vault, --set, --strategies and --json are shared). */
export const evalGrowthOptions = { commits: { type: 'string' as const } };

const OWN_OPTIONS = new Set(['vault', 'set', 'json', 'help', 'strategies', ...Object.keys(evalGrowthOptions)]);

/** Progress on a terminal: one line, rewritten in place. */
function progressLine(io: Io & { isTTY?: boolean }): { update: (p: GrowthProgress) => void; done: () => void } {
  const line = statusLine(io);
  return {
    update: (p) =>
      line.show(`growth: point ${p.pointIndex}/${p.points} (${p.point}): ${p.strategy ? `${p.strategy} ${p.done}/${p.total}` : 'reading the notes'}`, {
        now: !p.strategy || p.done >= p.total,
      }),
    done: line.done,
  };
}

const two = (x: number) => x.toFixed(2);

/** The report as a table: one row per point, recall@5 with its interval per strategy. */
function growthTable(report: GrowthReport): string[] {
  const strategies = [...new Set(report.points.flatMap((p) => Object.keys(p.summary)))];
  const header = ['point', 'notes', 'questions', 'left out', ...strategies.map((s) => `${s} R@5`)];
  const rows = report.points.map((p) => [
    p.label,
    String(p.notes),
    String(p.questions),
    String(p.leftOut),
    ...strategies.map((s) => {
      const r = p.summary[s]?.recall_at_5;
      return r ? `${two(r.mean)} [${two(r.low)}-${two(r.high)}]` : '-';
    }),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [`Question set ${report.set}: recall@5 (95% interval) as the vault grows`, '', line(header), ...rows.map(line)];
}

/**
 * `lucid eval growth`, a verb of the `eval` command: `values` are the options it parsed (`vault`,
 * `set`, `commits`, `strategies`, `json`), `args` the words after `growth` (none). Stops cleanly on Ctrl-C: the
 * temporary clone is removed before the process exits.
 */
export async function evalGrowth(io: Io & { isTTY?: boolean }, values: Values, args: string[] = []): Promise<number> {
  const foreign = Object.keys(values).find((key) => values[key] !== undefined && !OWN_OPTIONS.has(key));
  if (foreign) throw new UsageError(`eval growth does not take --${foreign}`, 'its options are --vault, --set, --commits, --strategies and --json');
  if (args.length > 0) throw new UsageError(`eval growth takes no arguments, not "${args[0]}"`, 'name the set with --set');
  const set = typeof values.set === 'string' ? values.set : undefined;
  if (set?.includes(',')) throw new UsageError('eval growth replays one question set at a time', 'name one with --set');
  let commits: number | undefined;
  if (values.commits !== undefined) {
    commits = Number(values.commits);
    if (typeof values.commits !== 'string' || !/^\d+$/.test(values.commits) || commits > 100) {
      throw new UsageError(`--commits must be a whole number from 0 to 100, not "${String(values.commits)}"`);
    }
  }
  const strategies =
    typeof values.strategies === 'string'
      ? [...new Set(values.strategies.split(',').map((name) => name.trim()))].filter(Boolean).map((name) => strategyByName(name))
      : undefined;
  const vault = await openCliVault(io, values.vault as string | undefined);
  const progress = progressLine(io);
  const stop = new AbortController();
  const onInt = () => stop.abort();
  process.once('SIGINT', onInt);
  try {
    const report = await measureGrowth(vault, { set, commits, strategies, onProgress: progress.update, signal: stop.signal });
    progress.done();
    if (values.json) printJson(io, report);
    else for (const line of growthTable(report)) io.out(line);
    return 0;
  } finally {
    progress.done();
    process.off('SIGINT', onInt);
    vault.close();
  }
}
