import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import {
  acceptInboxItem,
  listInbox,
  rejectInboxItem,
  showInboxItem,
  PROPOSAL_ACTIONS,
  type InboxFilter,
  type InboxItem,
  type InboxItemDetail,
  type Vault,
} from '../lib/vault';
import { openCliVault, printJson, UsageError, type Io } from './shared';

type Values = Record<string, string | boolean | undefined>;

const USAGE = `lucid inbox [list|show ID|accept ID|reject ID] [--vault DIR] [--json]
    [--agent A] [--flag F] [--action A]         (list)
    [--reason R] [--text-file F] [--target-hash H]   (accept, reject)

  list    the proposals waiting for a person, oldest first (the default)
  show    one proposal: who proposed it and why, and the diff of what accepting it changes;
          when the note changed since the proposal, both changes and their three-way merge
  accept  applies the proposal to its note and removes it from the inbox, in one commit.
          --text-file F applies your own version of the note's whole new text instead (edited,
          or the merge with its conflicts resolved; - reads standard input).
          --target-hash H: the note's hash as show printed it (none: the note must not exist);
          refused if the note changed since.
  reject  removes the proposal from the inbox, in one commit; --reason tells the agent why,
          in its next start_session`;

const VERBS = ['list', 'show', 'accept', 'reject'] as const;

/** The text of `--text-file` (`-` is standard input), refused unless it is UTF-8. */
async function textFile(io: Io, file: string): Promise<string> {
  let bytes: Buffer;
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    bytes = Buffer.concat(chunks);
  } else {
    try {
      bytes = readFileSync(nodePath.resolve(io.cwd, file));
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UsageError(`${file === '-' ? 'standard input' : file} is not valid UTF-8; nothing was accepted. Save it as UTF-8 first.`);
  }
}

function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function age(created: string, now: Date): string {
  const t = Date.parse(created);
  if (Number.isNaN(t)) return 'age unknown';
  const minutes = Math.max(0, Math.round((now.getTime() - t) / 60_000));
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

function itemLine(item: InboxItem, now: Date): string {
  const flag = item.flag ? ` [${item.flag}]` : '';
  const confidence = item.confidence === null ? '' : ` (confidence ${item.confidence})`;
  const head = item.problem ? `${item.id}  cannot be accepted` : `${item.id}  ${item.action} ${item.target}${flag}`;
  return `${head}\n    by ${item.proposedBy || 'unknown'}, ${age(item.created, now)}${confidence}${item.reason ? `: ${item.reason}` : ''}`;
}

function printDetail(io: Io, d: InboxItemDetail): void {
  io.out(`${d.id} (${d.path})`);
  io.out(`  ${d.action} ${d.target}`);
  io.out(`  proposed by ${d.proposedBy || 'unknown'} at ${d.created || 'an unknown time'}${d.session ? ` in session ${d.session}` : ''}`);
  if (d.reason) io.out(`  reason: ${d.reason}`);
  if (d.confidence !== null) io.out(`  confidence: ${d.confidence}`);
  if (d.flag) io.out(`  flag: ${d.flag}`);
  io.out(`  the note now: ${d.currentHash === null ? 'absent' : `hash ${d.currentHash}`}`);
  if (d.explanation) io.out(`\n${d.explanation}`);
  if (d.problem) {
    io.out(`\n${d.problem}`);
    return;
  }
  if (d.targetChanged && d.merge) {
    io.out(`\n${d.target} changed since the proposal. What the person changed since:\n`);
    io.out(d.merge.personDiff || '(nothing)');
    io.out(`\nWhat the proposal changes:\n`);
    io.out(d.merge.agentDiff || '(nothing)');
    io.out(`\nThe three-way merge${d.merge.conflicts > 0 ? `, with ${d.merge.conflicts} conflict${d.merge.conflicts === 1 ? '' : 's'} to resolve` : ''}:\n`);
    io.out(d.merge.text);
    io.out(
      `Save the merge to a file, resolve ${d.merge.conflicts > 0 ? 'each conflict (remove the <<<<<<< ======= >>>>>>> lines)' : 'what you want changed'}, then: lucid inbox accept ${d.id} --text-file FILE --target-hash ${d.currentHash}`,
    );
    return;
  }
  if (d.targetChanged && d.action === 'delete') {
    io.out(`\n${d.target} changed since the proposal to delete it. To delete it as it is now: lucid inbox accept ${d.id} --target-hash ${d.currentHash}`);
  } else if (d.targetChanged) {
    io.out(`\n${d.target} changed since the proposal; write the version you want to a file, then: lucid inbox accept ${d.id} --text-file FILE`);
  }
  io.out(`\nWhat accepting it changes:\n`);
  io.out(d.diff || '(nothing: the note already reads like this)');
}

async function withVault<T>(io: Io, values: Values, work: (vault: Vault) => Promise<T>): Promise<T> {
  const vault = await openCliVault(io, values.vault as string | undefined);
  try {
    return await work(vault);
  } finally {
    vault.close();
  }
}

function oneId(verb: string, positionals: string[]): string {
  if (positionals.length !== 1)
    throw new UsageError(`inbox ${verb} needs one item id, e.g. lucid inbox ${verb} 2026-11-30-140211-handbook (lucid inbox list shows them)`);
  return positionals[0].replace(/\.md$/i, '').split('/').pop() as string;
}

/** `lucid inbox`: the inbox queue from a terminal, through the same operations as the dashboard. */
export const inboxCommands = {
  inbox: {
    summary: 'List, show, accept or reject the proposals agents sent to the inbox',
    usage: USAGE,
    options: {
      vault: { type: 'string' as const, short: 'v' },
      json: { type: 'boolean' as const },
      agent: { type: 'string' as const },
      flag: { type: 'string' as const },
      action: { type: 'string' as const },
      reason: { type: 'string' as const, short: 'r' },
      'text-file': { type: 'string' as const },
      'target-hash': { type: 'string' as const },
    },
    async run(io: Io, values: Values, positionals: string[]): Promise<number> {
      const [verb = 'list', ...rest] = positionals;
      if (!(VERBS as readonly string[]).includes(verb)) throw new UsageError(`unknown inbox command "${verb}"; use one of ${VERBS.join(', ')}`);
      if (verb === 'list') {
        if (rest.length > 0) throw new UsageError(`inbox list takes no item id (give --agent, --flag or --action to narrow it)`);
        const action = optional(values, 'action');
        if (action && !(PROPOSAL_ACTIONS as readonly string[]).includes(action)) throw new UsageError(`--action must be one of ${PROPOSAL_ACTIONS.join(', ')}`);
        const filter: InboxFilter = { agent: optional(values, 'agent'), flag: optional(values, 'flag'), action };
        const items = await withVault(io, values, (vault) => listInbox(vault, filter));
        if (values.json) printJson(io, items);
        else if (items.length === 0) io.out(filter.agent || filter.flag || filter.action ? 'No inbox items match.' : 'The inbox is empty.');
        else {
          const now = new Date();
          for (const item of items) io.out(itemLine(item, now));
          io.out(`${items.length} item${items.length === 1 ? '' : 's'}. Next: lucid inbox show ID`);
        }
        return 0;
      }
      const id = oneId(verb, rest);
      if (verb === 'show') {
        const detail = await withVault(io, values, (vault) => showInboxItem(vault, id));
        if (values.json) printJson(io, detail);
        else printDetail(io, detail);
        return 0;
      }
      if (verb === 'reject') {
        if (values['text-file'] !== undefined || values['target-hash'] !== undefined) throw new UsageError('inbox reject takes only --reason');
        const result = await withVault(io, values, (vault) => rejectInboxItem(vault, { id, reason: optional(values, 'reason') }));
        if (values.json) printJson(io, result);
        else io.out(`Rejected ${id} (edit ${result.editId}, commit ${result.commit.slice(0, 7)}). The agent hears it at its next start_session.`);
        return 0;
      }
      const file = optional(values, 'text-file');
      const text = file === undefined ? undefined : await textFile(io, file);
      const hash = optional(values, 'target-hash');
      // Text made from the note as it was shown: without its hash a save since then would be replaced.
      if (text !== undefined && hash === undefined) throw new UsageError('inbox accept --text-file needs --target-hash (the hash inbox show printed)');
      const result = await withVault(io, values, (vault) =>
        acceptInboxItem(vault, {
          id,
          text,
          reason: optional(values, 'reason'),
          ...(hash === undefined ? {} : { expectedTargetHash: hash === 'none' ? null : hash }),
        }),
      );
      if (values.json) printJson(io, result);
      else
        io.out(`Accepted ${id}${result.edited ? ' with your text' : ''} into ${result.target} (edit ${result.editId}, commit ${result.commit.slice(0, 7)}).`);
      return 0;
    },
  },
};
