import type { ParseArgsConfig } from 'node:util';
import {
  assertWritableRepo,
  describeRead,
  findNote,
  formatDate,
  gitConfig,
  initVault,
  inspectLock,
  readNoteForAgent,
  searchNotes,
  type ReadNoteInput,
  type Vault,
} from '../lib/vault';
import { defaultDemoAnchor, generateDemoVault } from '../lib/demo/demo';
import { fallbackUser, machineOption, openCliVault, printJson, UsageError, vaultDir, type Io } from './shared';

/** One verb: its help, its flags and what it does. */
export interface Command {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run: (io: Io, values: Record<string, string | boolean | undefined>, positionals: string[]) => Promise<number>;
}

const vaultOption = { vault: { type: 'string' as const, short: 'v' } };
const jsonOption = { json: { type: 'boolean' as const } };

/** The CLI's own verbs on one vault: init, lint, search, read, log, doctor, demo (cli/main.ts lists the other modules). */
export const coreCommands: Record<string, Command> = {
  init: {
    summary: 'Install Lucid into a vault (new or existing), in one commit',
    usage:
      'lucid init [DIR] [--json] [--force]\n\n  Adds the folders, AGENTS.md, changelog.md, .gitignore lines and, where a name had to\n  change, lucid.json. Runs git init where needed, committing the files already there first\n  (never dot-files, plugin data, or files that look like they hold a secret). Never changes an\n  existing note or what a link resolves to. Running it again changes nothing.\n\n  --force  allow your home folder or the file-system root (not recommended)',
    options: { ...jsonOption, force: { type: 'boolean' } },
    async run(io, values, positionals) {
      const dir = vaultDir(io, positionals[0]);
      const report = await initVault({ dir, env: io.env, fallbackUser: fallbackUser(io.env), ...machineOption(io.env), force: Boolean(values.force) });
      if (values.json) {
        printJson(io, report);
        return 0;
      }
      if (report.gitInitialized) io.out(`Made ${report.root} a git repository.`);
      if (report.snapshotCommit) io.out(`Committed the existing files first, as they were (${report.snapshotCommit.slice(0, 7)}).`);
      if (report.leftOut.length > 0) {
        io.out(`Left out of that commit (add them yourself if you want them in git):`);
        for (const l of report.leftOut.slice(0, 20)) io.out(`  ${l.path}: ${l.why}`);
        if (report.leftOut.length > 20) io.out(`  … and ${report.leftOut.length - 20} more`);
      }
      if (report.enclosingRepo) io.out(`The vault is a folder inside the git repository at ${report.enclosingRepo}; Lucid commits there, only its own paths.`);
      for (const r of report.renamed) io.out(`Using ${r.to} instead of ${r.from}: ${r.why} (recorded in lucid.json).`);
      if (report.commit) {
        io.out(`Added ${report.created.join(', ')}`);
        io.out(`Committed ${report.commit.slice(0, 7)}. Next: lucid serve --vault ${report.root}`);
      } else {
        io.out(`${report.root} already has Lucid's layout; nothing changed.`);
      }
      return 0;
    },
  },
  lint: {
    summary: 'Report schema violations, unparseable notes and broken links (exit 1 when any)',
    usage: 'lucid lint [--vault DIR] [--json]',
    options: { ...vaultOption, ...jsonOption },
    async run(io, values) {
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const report = await vault.lint();
        const problems = report.violations.length + report.unparseable.length + report.brokenLinks.length;
        if (values.json) printJson(io, report);
        else {
          for (const u of report.unparseable) io.out(`${u.path}: ${u.message}`);
          for (const v of report.violations) io.out(`${v.path}: ${v.field}: ${v.message}`);
          for (const b of report.brokenLinks) io.out(`${b.path}:${b.line}: broken link ${b.link}`);
          io.out(
            `${report.notes} notes: ${report.violations.length} schema violations, ${report.unparseable.length} unparseable, ${report.brokenLinks.length} broken links.`,
          );
        }
        return problems > 0 ? 1 : 0;
      } finally {
        vault.close();
      }
    },
  },
  search: {
    summary: 'Search notes with a question in plain words',
    usage:
      'lucid search "QUERY" [--vault DIR] [--type T] [--project P] [--folder F] [--limit N] [--all] [--json]\n\n  --all  also search the changelog, inbox and evaluations',
    options: {
      ...vaultOption,
      ...jsonOption,
      type: { type: 'string' },
      project: { type: 'string' },
      folder: { type: 'string' },
      limit: { type: 'string' },
      all: { type: 'boolean' },
    },
    async run(io, values, positionals) {
      const query = positionals.join(' ').trim();
      if (!query) throw new UsageError('search needs a query, e.g. lucid search "why did we pick postgres"');
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const { results: hits } = await searchNotes(vault, {
          query,
          type: values.type as string | undefined,
          project: values.project as string | undefined,
          folder: values.folder as string | undefined,
          limit: limitOf(values.limit, 200),
          includeSystem: Boolean(values.all),
        });
        if (values.json) printJson(io, hits);
        else if (hits.length === 0) io.out('No notes match. Try other words, or fewer filters.');
        else for (const h of hits) io.out(`${h.path}${h.type ? ` (${h.type})` : ''}\n    ${h.snippet}`);
        return 0;
      } finally {
        vault.close();
      }
    },
  },
  read: {
    summary: 'Print a note, found by path, title, alias or [[link]] (with --json: front matter, hash, headings, links, backlinks)',
    usage: 'lucid read NOTE [--vault DIR] [--section HEADING] [--offset N] [--max-chars N] [--json]',
    options: { ...vaultOption, ...jsonOption, section: { type: 'string' }, offset: { type: 'string' }, 'max-chars': { type: 'string' } },
    async run(io, values, positionals) {
      if (positionals.length !== 1) throw new UsageError('read needs one note, e.g. lucid read decisions/use-postgres.md or lucid read "Jane Doe"');
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        // Numbers go to the contract as numbers when they are digits, else as given, so a bad one gets the tool's sentence.
        const number = (value: string | boolean | undefined) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
        const input = { path: positionals[0], section: values.section, offset: number(values.offset), max_chars: number(values['max-chars']) };
        const paged = input.section !== undefined || input.offset !== undefined || input.max_chars !== undefined;
        if (values.json || paged) {
          const result = await readNoteForAgent(vault, input as ReadNoteInput);
          if (values.json) printJson(io, result);
          else {
            io.out(result.body);
            if (result.next_offset !== null) io.err(describeRead(result));
          }
          return 0;
        }
        const note = await findNote(vault, positionals[0]);
        if (note.text === null) {
          io.err(`lucid: ${note.path} cannot be shown as text: ${note.problemMessage}`);
          return 1;
        }
        io.out(note.text);
        return 0;
      } finally {
        vault.close();
      }
    },
  },
  log: {
    summary: 'Show the vault history: who changed what, and why',
    usage: 'lucid log [--vault DIR] [--path P] [--actor A] [--op OP] [--limit N] [--json] [--machine M] [--person NAME]',
    options: {
      ...vaultOption,
      ...jsonOption,
      path: { type: 'string' },
      actor: { type: 'string' },
      op: { type: 'string' },
      machine: { type: 'string' },
      person: { type: 'string' },
      limit: { type: 'string' },
    },
    async run(io, values) {
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const limit = limitOf(values.limit, 1000) ?? 30;
        const records = values.path
          ? await vault.history(values.path as string, limit)
          : await vault.log({
              limit,
              actor: values.actor as string | undefined,
              op: values.op as string | undefined,
              machine: values.machine as string | undefined,
              person: values.person as string | undefined,
            });
        if (values.json) printJson(io, records);
        else if (records.length === 0) io.out('No commits yet.');
        else
          for (const r of records) {
            const when = formatDate(new Date(r.time * 1000));
            io.out(`${r.sha.slice(0, 7)} ${when} ${r.actor ?? r.author} ${r.op ?? '-'} ${r.subject}${r.reason ? ` — ${r.reason.split('\n')[0]}` : ''}`);
          }
        return 0;
      } finally {
        vault.close();
      }
    },
  },
  doctor: {
    summary: 'Check git identity, repository state, locks and indexes',
    usage: 'lucid doctor [--vault DIR] [--json]',
    options: { ...vaultOption, ...jsonOption },
    async run(io, values) {
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        const checks = await runDoctor(vault, io);
        if (values.json) printJson(io, checks);
        else for (const c of checks) io.out(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
        return checks.every((c) => c.ok) ? 0 : 1;
      } finally {
        vault.close();
      }
    },
  },
  demo: {
    summary: "Make a demo vault: weeks of a small team's history with agents, in a new folder",
    usage:
      "lucid demo DIR [--anchor YYYY-MM-DD] [--json]\n\n  Writes about five and a half weeks of history ending on the anchor date (default: today, or yesterday before 9:00)\n  through Lucid's own write path: people, projects, decisions, agent sessions, molted skills,\n  inbox proposals. The same anchor always gives the same files. DIR must be new, empty, or an\n  earlier demo, which is replaced.",
    options: { ...jsonOption, anchor: { type: 'string' } },
    async run(io, values, positionals) {
      if (positionals.length !== 1) throw new UsageError('demo needs one folder, e.g. lucid demo /tmp/lucid-demo');
      const given = values.anchor as string | undefined;
      let anchor = defaultDemoAnchor(new Date());
      if (given !== undefined) {
        const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(given);
        const date = parts ? new Date(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3])) : null;
        if (!date || formatDate(date) !== given) throw new UsageError(`--anchor must be a date like 2026-11-30, not "${given}"`);
        anchor = date;
      }
      const report = await generateDemoVault({ dir: vaultDir(io, positionals[0]), env: io.env, anchor, fallbackUser: fallbackUser(io.env) });
      if (values.json) printJson(io, report);
      else {
        io.out(
          `Made a demo vault in ${report.root}: ${report.commits} commits ending ${report.anchor}, ${report.notes} notes, ${report.sessions} sessions, ${report.inbox} inbox proposals.`,
        );
        io.out(`Next: lucid lint --vault ${report.root}`);
      }
      return 0;
    },
  },
};

/** `--limit N`: a whole number from 1 to `max`, or a usage error. */
function limitOf(value: string | boolean | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--limit must be a whole number from 1 to ${max}.`);
  return n;
}

async function runDoctor(vault: Vault, io: Io): Promise<{ name: string; ok: boolean; detail: string }[]> {
  const checks: { name: string; ok: boolean; detail: string }[] = [];
  const name = await gitConfig(vault.repo, 'user.name');
  const email = await gitConfig(vault.repo, 'user.email');
  checks.push({
    name: 'git identity',
    ok: Boolean(name && email),
    detail:
      name && email
        ? `${name} <${email}>; people's edits are recorded as ${vault.person}`
        : `git has no user.name/user.email; edits are recorded as ${vault.person}. Set them with: git -C ${vault.root} config user.name "Your Name"`,
  });
  try {
    await assertWritableRepo(vault.repo);
    checks.push({ name: 'repository state', ok: true, detail: `on a branch, no merge or rebase in progress (${vault.repo.top})` });
  } catch (error) {
    checks.push({ name: 'repository state', ok: false, detail: (error as Error).message });
  }
  const fsync = await gitConfig(vault.repo, 'core.fsync');
  checks.push({
    name: 'git durability',
    ok: true,
    detail: fsync
      ? `core.fsync = ${fsync}`
      : "core.fsync is not set: git's default does not flush loose objects to disk. Lucid flushes the notes it writes itself; to make every commit survive a power cut too: git config core.fsync committed",
  });
  const lock = await inspectLock(`${vault.stateDir()}/vault`);
  checks.push({
    name: 'vault lock',
    ok: !lock.stale,
    detail: lock.held
      ? 'held by a running Lucid process'
      : lock.stale
        ? `stale lock at .lucid/vault.lock; no process holds it: it is taken over at the next write`
        : 'free',
  });
  const swept = await vault.sweepTempFiles();
  checks.push({ name: 'leftover temp files', ok: true, detail: swept.length ? `removed ${swept.length}: ${swept.slice(0, 5).join(', ')}` : 'none' });
  try {
    const sync = await vault.syncSearch();
    checks.push({ name: 'search index', ok: true, detail: `up to date (${sync.added} added, ${sync.updated} updated, ${sync.removed} removed)` });
  } catch (error) {
    checks.push({ name: 'search index', ok: false, detail: `${(error as Error).message}; delete .lucid/search.sqlite to rebuild it` });
  }
  try {
    const index = await vault.commits();
    checks.push({ name: 'commit index', ok: true, detail: `${index.count()} commits indexed` });
  } catch (error) {
    checks.push({ name: 'commit index', ok: false, detail: `${(error as Error).message}; delete .lucid/commits.sqlite to rebuild it` });
  }
  void io;
  return checks;
}
