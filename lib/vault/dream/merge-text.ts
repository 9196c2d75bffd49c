import { normalizeWords } from './words';
import { trimEndOf } from '../text';

/**
 * The merged text of two skills, written deterministically (never by a model): the survivor's
 * body as it is, with each step of the other skill that no step of the survivor already covers
 * inserted after the survivor's step that matched the other's previous step (so the other's order
 * is kept), its lines copied as written (code blocks included), numbered lists renumbered.
 */

/** One top-level list item and the lines that belong to it. */
interface Item {
  /** first and last line index (inclusive) in the body's lines */
  start: number;
  end: number;
  /** the item's text with its marker, continuation lines joined */
  text: string;
  numbered: boolean;
  words: Set<string>;
}

const ITEM = /^( {0,3})([-*+]|\d+[.)])(\s+)(\S.*|)$/;
const FENCE = /^\s*(`{3,}|~{3,})/;

/** The top-level list items of a body, with their continuation lines and code blocks. */
function itemsOf(lines: readonly string[]): Item[] {
  const items: Item[] = [];
  let fence: string | null = null;
  let current: Item | null = null;
  lines.forEach((line, i) => {
    const mark = FENCE.exec(line);
    if (fence !== null) {
      if (mark && mark[1][0] === fence) fence = null;
      if (current) current.end = i;
      return;
    }
    const item = ITEM.exec(line);
    if (item) {
      current = { start: i, end: i, text: item[4], numbered: /\d/.test(item[2]), words: new Set() };
      items.push(current);
    } else if (current && (mark || /^\s{2,}\S/.test(line) || (line.trim() === '' && /^\s{2,}\S/.test(lines[i + 1] ?? '')))) {
      if (mark) fence = mark[1][0];
      current.end = i;
      current.text += ` ${line.trim()}`;
    } else if (line.trim() !== '' || !(current && ITEM.exec(lines[i + 1] ?? ''))) {
      current = null;
    }
  });
  for (const item of items) item.words = new Set(normalizeWords(item.text));
  return items;
}

/** Whether `step`'s words are (mostly) in `other`: the finder's step cover, one step at a time. */
function covers(other: ReadonlySet<string>, step: ReadonlySet<string>): boolean {
  if (step.size === 0) return true;
  let inside = 0;
  for (const w of step) if (other.has(w)) inside += 1;
  return inside / step.size >= (step.size <= 2 ? 1 : 0.6);
}

/** The other skill's item as lines in the survivor's list style (marker and numbering fixed later). */
function linesOf(lines: readonly string[], item: Item): string[] {
  const out = lines.slice(item.start, item.end + 1);
  const match = ITEM.exec(out[0]) as RegExpExecArray;
  out[0] = `${match[1]}${match[2]}${match[3]}${match[4]}`;
  return out;
}

/** Renumbers the numbered top-level items of each list run 1, 2, 3… (bullets left alone). */
function renumber(lines: string[]): string[] {
  let n = 0;
  let fence: string | null = null;
  return lines.map((line) => {
    const mark = FENCE.exec(line);
    if (fence !== null) {
      if (mark && mark[1][0] === fence) fence = null;
      return line;
    }
    if (mark) fence = mark[1][0];
    const item = ITEM.exec(line);
    if (item && /\d/.test(item[2])) {
      n += 1;
      return `${item[1]}${n}${item[2].slice(-1)}${item[3]}${item[4]}`;
    }
    if (/^\s*#/.test(line) || (line.trim() !== '' && !/^\s/.test(line) && !item)) n = 0;
    return line;
  });
}

/** The marker of an inserted item: the survivor's (bullet or number) style. */
function restyle(itemLines: string[], numbered: boolean, bullet: string): string[] {
  const match = ITEM.exec(itemLines[0]) as RegExpExecArray;
  const marker = numbered ? '1.' : bullet;
  return [`${match[1]}${marker}${match[3]}${match[4]}`, ...itemLines.slice(1)];
}

/**
 * The union of two procedures: `survivor`'s body with the steps of `other` it lacks. When the
 * survivor has no list at all, the other's missing steps go in a list at its end under a heading
 * naming where they came from (`from`). Returns the text and how many steps were added.
 */
export function mergeProcedures(survivor: string, other: string, from: string): { body: string; added: number } {
  const eol = survivor.includes('\r\n') ? '\r\n' : '\n';
  const aLines = survivor.split(/\r?\n/);
  const bLines = other.split(/\r?\n/);
  const aItems = itemsOf(aLines);
  const bItems = itemsOf(bLines);
  // where each of b's missing items goes: after a's item at the index (-1: before a's first item)
  const inserts = new Map<number, string[][]>();
  let anchor = aItems.length > 0 ? -1 : -2;
  let added = 0;
  const numbered = aItems.length > 0 ? aItems[0].numbered : (bItems[0]?.numbered ?? false);
  const bullet = aItems.length > 0 ? (ITEM.exec(aLines[aItems.find((i) => !i.numbered)?.start ?? -1] ?? '')?.[2] ?? '-') : '-';
  for (const item of bItems) {
    const match = aItems.findIndex((a) => covers(a.words, item.words));
    if (match >= 0) {
      anchor = match;
      continue;
    }
    const list = inserts.get(anchor) ?? [];
    list.push(restyle(linesOf(bLines, item), numbered, bullet));
    inserts.set(anchor, list);
    added += 1;
  }
  if (added === 0) return { body: survivor, added: 0 };
  if (aItems.length === 0) {
    const trimmed = [...aLines];
    while (trimmed.length > 0 && trimmed[trimmed.length - 1].trim() === '') trimmed.pop();
    const steps = (inserts.get(-2) ?? []).flat();
    const out = [...trimmed, '', `## Steps from ${from}`, '', ...steps, ''];
    return { body: renumber(out).join(eol), added };
  }
  const out: string[] = [];
  const starts = new Map(aItems.map((item, i) => [item.start, i]));
  const ends = new Map(aItems.map((item, i) => [item.end, i]));
  aLines.forEach((line, i) => {
    if (starts.get(i) === 0) for (const lines of inserts.get(-1) ?? []) out.push(...lines);
    out.push(line);
    const ended = ends.get(i);
    if (ended !== undefined) for (const lines of inserts.get(ended) ?? []) out.push(...lines);
  });
  return { body: renumber(out).join(eol), added };
}

/** The trigger of a merged skill: the survivor's, and the other's when it says something the survivor's does not. */
export function mergeTriggers(survivor: string, other: string): string {
  const a = new Set(normalizeWords(survivor));
  const b = normalizeWords(other);
  if (!other.trim() || b.every((w) => a.has(w))) return survivor;
  if (!survivor.trim()) return other;
  return `${trimEndOf(survivor.trim(), '.;')}; or ${other.trim()}`;
}
