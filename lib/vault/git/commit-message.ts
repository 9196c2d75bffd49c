import { oneLine, trimEndOf } from '../text';

/**
 * Lucid's commit messages, written and read in this one file: a subject `<op> <path>`, the
 * reason, and a last paragraph of `Key: value` trailers (Lucid-Actor, Lucid-Op, Lucid-Edit,
 * Lucid-Session, then any extra ones such as Lucid-Molt, and Lucid-Machine last).
 */

/** The trailers every Lucid commit carries (and the session one when there is a session). */
export const TRAILER = {
  actor: 'Lucid-Actor',
  op: 'Lucid-Op',
  edit: 'Lucid-Edit',
  session: 'Lucid-Session',
  /** Where the edit was made: the machine's name (an extension of VAULT-FORMAT, see docs/decisions.md). */
  machine: 'Lucid-Machine',
} as const;

/** The longest machine name a `Lucid-Machine` trailer carries. */
const MACHINE_MAX = 64;

/**
 * A machine's name as a `Lucid-Machine` trailer carries it: one line, no control characters, at
 * most 64 characters; empty when nothing is left (the caller then falls back to the next source).
 */
export function machineName(value: string | null | undefined): string {
  return oneLine(value ?? '', 1000)
    .slice(0, MACHINE_MAX)
    .trim();
}

/** The `Lucid-Machine` trailer of a commit made at `vault` (the sync's merge commit adds it after its other trailers). */
export function machineTrailer(vault: { readonly machine: string }): [string, string] {
  return [TRAILER.machine, vault.machine];
}

/** The subject of the commit that saves a folder's existing files when `lucid init` makes it a repository. */
export const SNAPSHOT_SUBJECT = 'Snapshot of the vault before Lucid';

/**
 * The extra trailer of `record_decision`'s commits, so that git tells a decision recorded through
 * the tool from one written with write_note or edit_note (the protocol check reads it).
 */
export const DECISION_TRAILER: readonly [string, string] = ['Lucid-Tool', 'record_decision'];

/**
 * The extra trailer of a session note written because the session called `end_session`, so that
 * git tells it from one Lucid wrote when the client went away (abandonSessions), whatever outcome
 * the session gave.
 */
export const END_SESSION_TRAILER: readonly [string, string] = ['Lucid-Tool', 'end_session'];

/** What a Lucid commit message says. */
export interface CommitMessageInput {
  op: string;
  path: string;
  reason: string;
  actor: string;
  editId: string;
  session?: string;
  /** The machine the commit is made on (`Lucid-Machine`, after the standard trailers). */
  machine?: string;
  /** Extra trailers after the standard ones, e.g. ['Lucid-Molt', 'triage 2->3']. */
  extra?: readonly [string, string][];
}

/** Builds a Lucid commit message (the reason defaults to `<op> by <actor>`). */
export function formatCommitMessage(input: CommitMessageInput): string {
  const trailers: [string, string][] = [
    [TRAILER.actor, input.actor],
    [TRAILER.op, input.op],
    [TRAILER.edit, input.editId],
  ];
  if (input.session) trailers.push([TRAILER.session, input.session]);
  trailers.push(...(input.extra ?? []));
  const machine = machineName(input.machine);
  if (machine) trailers.push([TRAILER.machine, machine]);
  const body = input.reason || `${input.op} by ${input.actor}`;
  return `${input.op} ${oneLine(input.path, 200)}\n\n${body}\n\n${trailers.map(([k, v]) => `${k}: ${v}`).join('\n')}\n`;
}

/** Splits a commit message into subject, body and the trailers of its last paragraph. */
export function parseCommitMessage(message: string): { subject: string; body: string; trailers: Record<string, string> } {
  const text = trimEndOf(message.replace(/\r\n/g, '\n'), '\n');
  const [subject, ...rest] = text.split('\n');
  const paragraphs = rest
    .join('\n')
    .trim()
    .split(/\n\s*\n/);
  const trailers: Record<string, string> = {};
  const last = paragraphs[paragraphs.length - 1] ?? '';
  const lines = last.split('\n');
  const isTrailerBlock = paragraphs.length > 0 && last !== '' && lines.every((l) => /^[A-Za-z0-9-]+: /.test(l));
  if (isTrailerBlock) {
    for (const line of lines) {
      const at = line.indexOf(': ');
      trailers[line.slice(0, at)] = line.slice(at + 2).trim();
    }
    paragraphs.pop();
  }
  return { subject, body: paragraphs.join('\n\n').trim(), trailers };
}

/** An extended regular expression for `git log -E --grep` matching one trailer line exactly. */
export function trailerGrep(key: string, value: string): string {
  const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `^${escapeRegex(key)}: ${escapeRegex(value)}$`;
}

/** The `Lucid-Molt` trailer of a molt: `<skill name> <from>-><to>`. */
export function moltTrailer(name: string, from: number, to: number): [string, string] {
  return ['Lucid-Molt', `${name} ${from}->${to}`];
}

/**
 * The skill name and versions of a `Lucid-Molt` trailer's value, or null when it is not one. A
 * name may hold spaces: the versions are what follows the last one.
 */
export function parseMoltTrailer(value: string | undefined): { skill: string; from: number; to: number } | null {
  const text = value?.trim() ?? '';
  const space = text.lastIndexOf(' ');
  const versions = space > 0 ? /^(\d+)->(\d+)$/.exec(text.slice(space + 1)) : null;
  return versions ? { skill: text.slice(0, space), from: Number(versions[1]), to: Number(versions[2]) } : null;
}
