import { EDIT_OPERATIONS, editNote, editNoteInputSchema } from '../lib/vault';
import { check, content, contentOptions, finish, jsonOption, optional, reasonOption, sessionOption, vaultOption, type Values } from './agent-commands';
import { openCliVault, UsageError, type Io } from './shared';

/** The arguments of `lucid edit` as edit_note's input, checked by the agent contract. */
function editInput(values: Values, path: string, text: string | undefined) {
  const count = optional(values, 'expected-replacements');
  return check(editNoteInputSchema, {
    session: optional(values, 'session'),
    path,
    operation: optional(values, 'operation'),
    find: typeof values.find === 'string' ? values.find : undefined,
    // An empty --replace deletes what --find matched.
    replace: typeof values.replace === 'string' ? values.replace : undefined,
    expected_replacements: count === undefined ? undefined : Number(count),
    heading: optional(values, 'heading'),
    content: text,
    expected_hash: optional(values, 'expected-hash'),
    reason: optional(values, 'reason'),
  });
}

/** edit_note as a CLI verb, beside the other agent verbs. */
export const editCommands = {
  edit: {
    summary: `Change one part of a note as an agent session (${EDIT_OPERATIONS.join(', ')})`,
    usage:
      `lucid edit PATH --session ID --operation ${EDIT_OPERATIONS.join('|')} --reason TEXT [--vault DIR] [--json]\n` +
      '  find_replace:  --find TEXT --replace TEXT [--expected-replacements N]   (literal; N defaults to 1)\n' +
      '  replace_section, insert_before_heading, insert_after_heading:  --heading "## Status" (--content TEXT | --file F|-)\n' +
      '  prepend, append:  (--content TEXT | --file F|-)\n' +
      '  [--expected-hash H]\n\n' +
      '  One commit and one changelog line; every byte outside the edited part stays as it was. A count\n' +
      '  other than expected, or a heading that is missing or occurs twice, changes nothing (exit 1). A stale\n' +
      '  --expected-hash, or content that looks like a secret, sends the edit to the inbox (exit 1).',
    options: {
      ...vaultOption,
      ...jsonOption,
      ...sessionOption,
      ...reasonOption,
      ...contentOptions,
      operation: { type: 'string' as const, short: 'o' },
      find: { type: 'string' as const },
      replace: { type: 'string' as const },
      'expected-replacements': { type: 'string' as const },
      heading: { type: 'string' as const },
      'expected-hash': { type: 'string' as const },
    },
    async run(io: Io, values: Values, positionals: string[]) {
      if (positionals.length !== 1)
        throw new UsageError('edit needs one note path, e.g. lucid edit projects/atlas.md --session … --operation append --content "…" --reason "…"');
      const input = editInput(values, positionals[0], await content(io, values));
      const vault = await openCliVault(io, values.vault as string | undefined);
      try {
        return finish(io, values, await editNote(vault, input));
      } finally {
        vault.close();
      }
    },
  },
};
