import type { StartSessionResult } from './contract';

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
    for (const [i, item] of result.read_first.entries()) lines.push(`${i + 1}. ${item.path}, "${item.title}" (${item.type ?? 'note'}): ${item.why}`);
  } else {
    lines.push('Nothing to read first matched this task.');
  }
  const since = result.since_last_session;
  lines.push(
    '',
    since.since
      ? `Since your last session (${since.previous_session}, ended ${since.since}):`
      : "People's changes of the last 14 days (no earlier session of yours):",
  );
  if (since.edited.length + since.rejected.length + since.reverted.length === 0) lines.push('- nothing changed by people.');
  for (const r of since.rejected) {
    lines.push(
      `- ${r.by} rejected ${r.yours ? 'your' : `${r.proposed_by ?? 'a'}`} proposal to ${r.action ?? 'change'} ${r.target ?? r.inbox_path}: "${r.reason}". Do not propose it again unchanged.`,
    );
  }
  for (const r of since.reverted) {
    lines.push(`- ${r.by} reverted ${r.yours ? 'your' : `${r.reverted_actor ?? 'an'}`} edit of ${r.path}: "${r.reason}".`);
  }
  for (const e of since.edited) {
    lines.push(
      `- ${e.by} edited ${e.path} (${e.op}${e.reason ? `: "${e.reason}"` : ''})${e.yours ? "; you wrote this note before, read it again: the person's version is the instruction" : ''}.`,
    );
  }
  if (result.notes.length > 0) lines.push('', ...result.notes);
  return lines.join('\n');
}
