import { parseArgs } from 'node:util';
import type { Command } from './core-commands';
import { processIo, UsageError, type Io } from './io';

type Commands = Record<string, Command>;

/**
 * The modules that hold the verbs, in the order `lucid --help` lists them. Each is loaded only when
 * one of its verbs runs: loading one pulls in lib/vault, which `--help` must not pay for.
 */
const verbModules: Record<string, () => Promise<Commands>> = {
  core: async () => (await import('./core-commands')).coreCommands,
  dashboard: async () => (await import('./dashboard-commands')).dashboardCommands,
  agent: async () => (await import('./agent-commands')).agentCommands,
  inbox: async () => (await import('./inbox-commands')).inboxCommands,
  history: async () => (await import('./history-commands')).historyCommands,
  edit: async () => (await import('./edit-commands')).editCommands,
  dream: async () => {
    const [{ dreamCommands }, { withDreamReview }] = await Promise.all([import('./dream-commands'), import('./dream-review-commands')]);
    // The review's verbs wrap the dream pass's own `dream` command (lucid dream runs|show|land|dismiss).
    return { ...dreamCommands, dream: withDreamReview(dreamCommands.dream) };
  },
  skill: async () => (await import('./skill-commands')).skillCommands,
  report: async () => (await import('./report-commands')).reportCommands,
  eval: async () => ({ eval: (await import('./eval-commands')).evalCommand }),
  sync: async () => (await import('./sync-commands')).syncCommands,
};

/** Each verb's name, one-line summary and module (a key of `verbModules`): what `--help` prints, recorded by the build. */
export type VerbIndex = { name: string; summary: string; module: string }[];

/** Loads every verb module and lists their verbs (the build records this, so the compiled CLI loads none for `--help`). */
export async function verbIndex(): Promise<VerbIndex> {
  const index: VerbIndex = [];
  for (const [module, load] of Object.entries(verbModules)) {
    for (const [name, command] of Object.entries(await load())) index.push({ name, summary: command.summary, module });
  }
  return index;
}

function helpText(index: VerbIndex): string {
  const width = Math.max(...index.map((v) => v.name.length));
  const lines = index.map((v) => `  ${v.name.padEnd(width)}  ${v.summary}`);
  return `lucid: a memory for AI agents that people can read, correct and trust\n\nUsage: lucid <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nEvery command takes --help. The vault is --vault DIR, else $LUCID_VAULT, else the current folder.\n`;
}

async function reportError(io: Io, error: unknown): Promise<number> {
  const shared = await import('./shared');
  return shared.reportError(io, error);
}

/**
 * Runs the CLI with `argv` (without node and script); returns the exit code. `index` is the verb
 * index the build recorded; without it (running from the sources) every verb module is loaded.
 */
export async function main(argv: string[], io: Io = processIo(), index?: VerbIndex): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(helpText(index ?? (await verbIndex())));
    return name ? 0 : 2;
  }
  if (name === '--version') {
    io.out('lucid 0.1.0');
    return 0;
  }
  const module = (index ?? (await verbIndex())).find((v) => v.name === name)?.module;
  const command = module ? (await verbModules[module]())[name] : undefined;
  if (!command) return reportError(io, new UsageError(`unknown command "${name}"`));
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.out(`${command.summary}\n\nUsage: ${command.usage}\n`);
      return 0;
    }
    return await command.run(io, values as Record<string, string | boolean | undefined>, positionals);
  } catch (error) {
    if (error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      return reportError(io, new UsageError(error.message));
    }
    return reportError(io, error);
  }
}
