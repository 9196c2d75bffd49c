/**
 * The changelog's union merge for a sync: two versions of a changelog file become one holding every
 * line of both, each edit once (by its `^e…` block id), newest first; and a line already kept in a
 * monthly archive is not kept in the current file too (one side rotated a month the other had not).
 */

const EDIT_ID = /\s\^(e[a-z2-7]{12})\s*$/;
const STAMP = /^- (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) /;

/** The edit id a changelog line ends with, or null. */
function editIdOf(line: string): string | null {
  return EDIT_ID.exec(line)?.[1] ?? null;
}

function linesOf(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The union of changelog texts: the first text's title (what precedes its first `- ` line), then
 * every `- ` line of all of them, each edit id once (the first text's wins), sorted newest first by
 * the line's date and time (ties keep their order); other lines after the first entry are kept
 * once, at the end. `drop` leaves out lines whose edit id it holds.
 */
export function unionChangelog(texts: readonly string[], drop: ReadonlySet<string> = new Set()): string {
  const head: string[] = [];
  const entries: { line: string; stamp: string; order: number }[] = [];
  const rest: string[] = [];
  const seen = new Set<string>();
  const seenRest = new Set<string>();
  texts.forEach((text, index) => {
    const lines = linesOf(text);
    const first = lines.findIndex((l) => l.startsWith('- '));
    if (index === 0) head.push(...(first === -1 ? lines : lines.slice(0, first)));
    const from = first === -1 ? lines.length : first;
    for (const line of index === 0 || first !== -1 ? lines.slice(from) : []) {
      if (line.startsWith('- ')) {
        const key = editIdOf(line) ?? line;
        if (seen.has(key) || drop.has(key)) continue;
        seen.add(key);
        entries.push({ line, stamp: STAMP.exec(line)?.[1] ?? '', order: entries.length });
      } else if (line.trim() !== '' && !seenRest.has(line)) {
        seenRest.add(line);
        rest.push(line);
      }
    }
  });
  entries.sort((a, b) => (a.stamp === b.stamp ? a.order - b.order : a.stamp < b.stamp ? 1 : -1));
  while (head.length > 0 && head[head.length - 1].trim() === '') head.pop();
  const out = [...head];
  if (entries.length > 0) {
    if (out.length > 0) out.push('');
    out.push(...entries.map((e) => e.line));
  }
  if (rest.length > 0) out.push('', ...rest);
  return `${out.join('\n')}\n`;
}

/** The edit ids of every line of a changelog text. */
export function editIdsIn(text: string): Set<string> {
  const ids = new Set<string>();
  for (const line of linesOf(text)) {
    const id = line.startsWith('- ') ? editIdOf(line) : null;
    if (id) ids.add(id);
  }
  return ids;
}
