import { oneLine } from '../text';
import type { Correction, StartSessionResult } from './contract-read';

/**
 * start_session's result in words, for a model (the MCP tool's text) and for a person (`lucid
 * session start`): the session id, what to read first, and what people changed.
 */
export function renderStart(result: StartSessionResult): string {
  const lines = [
    `Session ${result.session} started as ${result.actor}. Pass this id to every write, and call end_session when you are done (it writes ${result.session_note}).`,
    '',
  ];
  if (result.read_first.length > 0) {
    lines.push('Read these first (read_note):');
    for (const [i, item] of result.read_first.entries()) {
      lines.push(`${i + 1}. ${item.path}, "${item.title}" (${item.type ?? 'note'}): ${item.why}`);
      if (item.summary) lines.push(`   Summary: ${item.summary}`);
      if (item.next_steps?.length) lines.push('   Next steps:', ...item.next_steps.map((step) => `   - ${step}`));
    }
  } else {
    lines.push('Nothing to read first matched this task.');
  }
  const since = result.since_last_session;
  lines.push(
    '',
    since.previous_session
      ? `Since your last session (${since.previous_session}${since.since ? `, ended ${since.since}` : ''}):`
      : "People's changes of the last 14 days (no earlier session of yours):",
  );
  if (since.corrections.length + since.imports.length === 0) lines.push('- nothing changed by people.');
  for (const note of since.corrections) {
    const about = !note.exists
      ? 'it does not exist now: do not create it unless your task asks for it'
      : note.yours
        ? "you wrote this note or proposed a change to it before: read it again, the person's version is the instruction"
        : 'read it again before you rely on it';
    lines.push(`- ${note.path}: ${about}.`);
    for (const change of note.changes) lines.push(...renderCorrection(change, result.actor));
    if (note.more_changes > 0) lines.push(`  - and ${note.more_changes} earlier change${note.more_changes === 1 ? '' : 's'} to this note.`);
  }
  if (since.more_commits > 0) lines.push(`- and ${since.more_commits} older commit${since.more_commits === 1 ? '' : 's'} by people, not read.`);
  if (since.more_notes > 0) {
    lines.push(
      `- and ${since.more_notes} more note${since.more_notes === 1 ? '' : 's'} people changed, not listed here: read_note a note before you rely on it.`,
    );
  }
  for (const i of since.imports) {
    const examples = i.examples.length > 0 ? `, e.g. ${i.examples.join(', ')}` : '';
    lines.push(
      `- ${i.by} imported ${i.notes} note${i.notes === 1 ? '' : 's'} (${i.files} file${i.files === 1 ? '' : 's'}) in one commit at ${i.at} (${i.commit}${i.reason ? `: "${words(i.reason)}"` : ''})${examples}.`,
    );
  }
  if (since.more_imports > 0) lines.push(`- and ${since.more_imports} more import${since.more_imports === 1 ? '' : 's'}.`);
  if (result.notes.length > 0) lines.push('', ...result.notes);
  return lines.join('\n');
}

/** One correction in words, with its changed lines indented below it. */
function renderCorrection(c: Correction, actor: string): string[] {
  const said = c.reason ? `: "${words(c.reason)}"` : '';
  const where = c.commit ? ` at ${c.at} (${c.op && c.op !== 'commit' ? `${c.op}, ` : ''}commit ${c.commit})` : ` (saved ${c.at}, not yet committed)`;
  const proposal = c.proposal
    ? `${c.proposal.yours ? 'your' : `${c.proposal.proposed_by ?? 'an agent'}'s`} proposal to ${c.proposal.action ?? 'change'} it (${c.proposal.inbox_path})`
    : '';
  let head: string;
  switch (c.kind) {
    case 'edited':
      head = `${c.by} ${c.status === 'deleted' ? 'deleted' : c.status === 'added' ? 'created' : c.status === 'renamed' ? `renamed it from ${c.renamed_from}` : 'edited'} it${where}${said}.`;
      break;
    case 'uncommitted':
      head = `${c.by} ${c.status === 'deleted' ? 'deleted' : c.status === 'added' ? 'created' : 'edited'} it on disk; not yet committed (saved ${c.at})${c.lines?.length ? ', changed lines:' : '.'}`;
      break;
    case 'reverted': {
      const undid = c.undid;
      const whose = !undid?.actor ? 'an' : undid.actor === actor ? 'your' : `${undid.actor}'s`;
      const what = undid
        ? `${whose} ${undid.op ?? 'edit'} of it (${undid.edit ? `edit ${undid.edit}` : `commit ${undid.commit}`}${undid.reason ? `, "${words(undid.reason, 200)}"` : ''})`
        : 'an edit of it';
      head = `${c.by} reverted ${what}${where}${said}.${c.lines?.length ? ' What the undone edit had changed (the revert took it back):' : ''}`;
      break;
    }
    case 'rejected':
      head = `${c.by} rejected ${proposal}${c.commit ? where : ' (deleted it from the inbox, not yet committed)'}${said}. Do not propose it again unchanged.`;
      break;
    case 'accepted_by_hand':
      head = `${c.by} accepted ${proposal} by hand${where}${said}.`;
      break;
    case 'moved':
      head = `${c.by} moved ${proposal} out of the inbox to ${c.moved_to}${where}${said}.`;
      break;
  }
  const out = [`  - ${head}`];
  if (c.lines?.length) out.push('    ```diff', ...c.lines.map((line) => `    ${line}`), '    ```');
  if (c.more_lines) out.push(`    (and ${c.more_lines} more changed line${c.more_lines === 1 ? '' : 's'})`);
  return out;
}

/** A person's words on one line: paragraphs joined by a dash. */
function words(text: string, max = 300): string {
  return oneLine(
    text
      .split(/\n\s*\n/)
      .map((p) => oneLine(p, max))
      .join(' — '),
    max,
  );
}
