import { trimEndOf, WHITESPACE } from '../text';

// Markdown to plain text in linear time, for the evaluation's question generator and filler. The
// regexes these replace (`/!?\[\[([^\]\n]*)\]\]/g`, `/<[^>\n]+>/g`, …) were retried from every `[`
// or `<` of a long run and read the run again each time, so a run cost its length squared. These
// scanners do what those regexes did, match for match, but remember where the last run they read
// ended: each character is read a bounded number of times.

/**
 * Where the first of `stops` at or after a position is (the text's length when none), for
 * positions asked in increasing order: a position inside the run read last gets its end at once.
 */
function stopFinder(text: string, stops: string): (from: number) => number {
  let lastFrom = 0;
  let lastAt = -1;
  return (from) => {
    if (from >= lastFrom && from <= lastAt) return lastAt;
    let at = from;
    while (at < text.length && !stops.includes(text[at])) at += 1;
    lastFrom = from;
    lastAt = at;
    return at;
  };
}

/** How {@link replaceWikilinks} and {@link replaceMarkdownLinks} read a link. */
export interface LinkSyntax {
  /** A link ends at a line break (the link regexes of `[^\]\n]*`); otherwise it may span lines. */
  stopAtNewline: boolean;
  /** A `!` just before the link (an embed) goes with it. */
  bang: boolean;
}

/**
 * `text` with each wikilink `[[inner]]` replaced by `replace(inner, pipe)`, where `pipe` is the
 * index of the first `|` in `inner` (-1 when none); with `requirePipe`, links without one stay.
 * `inner` holds no `]` (nor a line break under `stopAtNewline`); links are found left to right
 * as `/!?\[\[([^\]]*)\]\]/g` finds them.
 */
export function replaceWikilinks(text: string, syntax: LinkSyntax & { requirePipe?: boolean }, replace: (inner: string, pipe: number) => string): string {
  const innerEnd = stopFinder(text, syntax.stopAtNewline ? ']\n' : ']');
  const nextPipe = stopFinder(text, '|');
  let out = '';
  let done = 0;
  let i = text.indexOf('[[');
  while (i >= 0) {
    const close = innerEnd(i + 2);
    const pipe = nextPipe(i + 2);
    if (!text.startsWith(']]', close) || (syntax.requirePipe && pipe >= close)) {
      i = text.indexOf('[[', i + 1);
      continue;
    }
    const start = syntax.bang && i > done && text[i - 1] === '!' ? i - 1 : i;
    out += text.slice(done, start) + replace(text.slice(i + 2, close), pipe < close ? pipe - i - 2 : -1);
    done = close + 2;
    i = text.indexOf('[[', done);
  }
  return done === 0 ? text : out + text.slice(done);
}

/** `text` with each markdown link `[shown](url)` as its shown text (what `/!?\[([^\]]*)\]\([^)]*\)/g` → `$1` does). */
export function replaceMarkdownLinks(text: string, syntax: LinkSyntax): string {
  const newline = syntax.stopAtNewline ? '\n' : '';
  const shownEnd = stopFinder(text, `]${newline}`);
  const urlEnd = stopFinder(text, `)${newline}`);
  let out = '';
  let done = 0;
  let i = text.indexOf('[');
  while (i >= 0) {
    const close = shownEnd(i + 1);
    const paren = text.startsWith('](', close) ? urlEnd(close + 2) : -1;
    if (paren < 0 || text[paren] !== ')') {
      i = text.indexOf('[', i + 1);
      continue;
    }
    const start = syntax.bang && i > done && text[i - 1] === '!' ? i - 1 : i;
    out += text.slice(done, start) + text.slice(i + 1, close);
    done = paren + 1;
    i = text.indexOf('[', done);
  }
  return done === 0 ? text : out + text.slice(done);
}

/** `text` with each HTML tag `<…>` on one line as a space: `/<[^>\n]+>/g`, or `/<[^>\n]*>/g` with `allowEmpty`. */
export function replaceHtmlTags(text: string, allowEmpty = false): string {
  const tagEnd = stopFinder(text, '>\n');
  let out = '';
  let done = 0;
  let i = text.indexOf('<');
  while (i >= 0) {
    const close = tagEnd(i + 1);
    if (text[close] !== '>' || (!allowEmpty && close === i + 1)) {
      i = text.indexOf('<', i + 1);
      continue;
    }
    out += `${text.slice(done, i)} `;
    done = close + 1;
    i = text.indexOf('<', done);
  }
  return done === 0 ? text : out + text.slice(done);
}

/** `text` with each HTML comment `<!-- … -->` as a space (what `/<!--[\s\S]*?-->/g` → ' ' does). */
export function replaceHtmlComments(text: string): string {
  let out = '';
  let done = 0;
  let i = text.indexOf('<!--');
  while (i >= 0) {
    const close = text.indexOf('-->', i + 4);
    if (close < 0) break;
    out += `${text.slice(done, i)} `;
    done = close + 3;
    i = text.indexOf('<!--', done);
  }
  return done === 0 ? text : out + text.slice(done);
}

/**
 * Where the fenced code block opening at `fence` ends: after its closing line (a line starting
 * with the opening's marks), or at the end of the text when none closes it; -1 when no block
 * opens there (fewer than three backticks or tildes, or no line break after the opening line).
 */
function fencedBlockEnd(text: string, fence: number): number {
  const mark = text[fence];
  if (mark !== '`' && mark !== '~') return -1;
  let run = fence;
  while (text[run] === mark) run += 1;
  if (run - fence < 3) return -1;
  const marks = text.slice(fence, run);
  const opening = text.indexOf('\n', run);
  if (opening < 0) return -1;
  let line = text.indexOf('\n', opening + 1);
  while (line >= 0 && !text.startsWith(marks, line + 1)) line = text.indexOf('\n', line + 1);
  if (line < 0) return text.length;
  const end = text.indexOf('\n', line + 1 + marks.length);
  return end < 0 ? text.length : end;
}

/**
 * `text` without its fenced code blocks (what
 * `/(^|\n)(`{3,}|~{3,})[^\n]*\n[\s\S]*?(\n\2[^\n]*|$)/g` → `$1` does): each block goes, from its
 * opening marks to the end of its closing line, the line break before it staying.
 */
export function stripFencedCode(text: string): string {
  return removeAtLineStarts(text, (at) => {
    const first = at === 0 ? fencedBlockEnd(text, 0) : -1;
    if (first >= 0) return { from: 0, end: first };
    const end = text[at] === '\n' ? fencedBlockEnd(text, at + 1) : -1;
    return end < 0 ? null : { from: at + 1, end };
  });
}

/**
 * `text` without the spans `span` finds at line starts: it is asked at 0 and at each line break,
 * and returns where its span starts (the line break kept before it or not) and ends, or null; the
 * search goes on from the span's end. Each character is passed once.
 */
function removeAtLineStarts(text: string, span: (at: number) => { from: number; end: number } | null): string {
  let out = '';
  let done = 0;
  let at = 0;
  while (at < text.length) {
    const hit = at === 0 || text[at] === '\n' ? span(at) : null;
    if (!hit) {
      const next = text.indexOf('\n', at + 1);
      if (next < 0) break;
      at = next;
      continue;
    }
    out += text.slice(done, hit.from);
    done = hit.end;
    at = hit.end;
  }
  return done === 0 ? text : out + text.slice(done);
}

const isSpace = (c: string | undefined) => c !== undefined && WHITESPACE.includes(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * `text` without list marks at line starts (what
 * `/(^|\n)\s*(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?/g` → `$1` does): the blank space before a mark, the
 * mark (`-`, `*`, `+`, `1.`, `1)`), the space after it and a task box (`[ ]`, `[x]`).
 */
export function stripListMarks(text: string): string {
  let blankFrom = -1;
  let blankEnd = -1;
  // Where the blank run at `from` ends, remembered: the runs of line starts inside it end there too.
  const skipBlank = (from: number) => {
    if (from < blankFrom || from > blankEnd) {
      blankFrom = from;
      blankEnd = from;
      while (isSpace(text[blankEnd])) blankEnd += 1;
    }
    return blankEnd;
  };
  return removeAtLineStarts(text, (at) => {
    // At the start `^` is tried first, and its blank run takes a leading line break too.
    const from = at === 0 ? 0 : at + 1;
    const mark = skipBlank(from);
    let after = -1;
    if ('-*+'.includes(text[mark] ?? '\n')) after = mark + 1;
    else if (isDigit(text[mark])) {
      let digit = mark;
      while (isDigit(text[digit])) digit += 1;
      if (text[digit] === '.' || text[digit] === ')') after = digit + 1;
    }
    if (after < 0 || !isSpace(text[after])) return null;
    let end = skipBlank(after);
    // A task box `[.]`: any one character but a line break, then blank space.
    const box = text[end + 1];
    if (text[end] === '[' && box !== undefined && !'\n\r\u2028\u2029'.includes(box) && text[end + 2] === ']' && isSpace(text[end + 3]))
      end = skipBlank(end + 3);
    return { from, end };
  });
}

/**
 * `text` split into sentences and lines (what `text.split(/[.!?;:]+(?:\s|$)|\n+/)` returns): at a
 * run of `.!?;:` followed by one blank character or the end, and at a run of line breaks.
 */
export function splitSentences(text: string): string[] {
  if (text === '') return [''];
  const STOPS = '.!?;:';
  const runEnd = (from: number, chars: string) => {
    let at = from;
    while (at < text.length && chars.includes(text[at])) at += 1;
    return at;
  };
  const out: string[] = [];
  let piece = 0;
  let at = 0;
  while (at < text.length) {
    let end = -1;
    if (STOPS.includes(text[at])) {
      // Every position of a run ends at the same place: the run is read once, from its first mark.
      const run = runEnd(at, STOPS);
      if (run === text.length) end = run;
      else if (isSpace(text[run])) end = run + 1;
      else {
        at = run;
        continue;
      }
    } else if (text[at] === '\n') end = runEnd(at, '\n');
    if (end < 0) {
      at += 1;
      continue;
    }
    out.push(text.slice(piece, at));
    piece = end;
    at = end;
  }
  out.push(text.slice(piece));
  return out;
}

/** `text` without blank space just before `,.;:!?` (what `.replace(/\s+([,.;:!?])/g, '$1')` does). */
export function dropSpaceBeforePunctuation(text: string): string {
  let out = '';
  let done = 0;
  let at = 0;
  while (at < text.length) {
    if (!isSpace(text[at])) {
      at += 1;
      continue;
    }
    let run = at;
    while (isSpace(text[run])) run += 1;
    if (run < text.length && ',.;:!?'.includes(text[run])) {
      out += text.slice(done, at);
      done = run;
    }
    at = run;
  }
  return done === 0 ? text : out + text.slice(done);
}

/** `text` without closing hashes of an ATX heading (what `.replace(/\s+#+\s*$/, '')` does): blank, hashes, blank, at the end. */
export function dropClosingHashes(text: string): string {
  const hashesEnd = trimEndOf(text, WHITESPACE).length;
  const hashes = trimEndOf(text.slice(0, hashesEnd), '#').length;
  if (hashes === hashesEnd) return text;
  const start = trimEndOf(text.slice(0, hashes), WHITESPACE).length;
  return start === hashes ? text : text.slice(0, start);
}

/**
 * A note's body as plain words: code, comments, HTML and URLs out; links as the text they show
 * (`[[a/b|shown]]` → shown, `[[a/b]]` → b, `[text](url)` → text); heading marks, list marks and
 * emphasis out.
 */
export function plainText(body: string): string {
  const noLinks = replaceWikilinks(
    replaceWikilinks(
      replaceHtmlComments(stripFencedCode(body).replace(/%%[\s\S]*?%%/g, ' ')).replace(/`[^`\n]*`/g, ' '),
      { stopAtNewline: true, bang: true, requirePipe: true },
      (inner, pipe) => inner.slice(pipe + 1),
    ),
    { stopAtNewline: true, bang: true },
    (target) => (target.split('#')[0].split('/').pop() ?? '').trim(),
  );
  return stripListMarks(
    replaceHtmlTags(replaceMarkdownLinks(noLinks, { stopAtNewline: true, bang: true }).replace(/https?:\/\/\S+/g, ' ')).replace(/(^|\n)\s{0,3}#{1,6}\s/g, '$1'),
  ).replace(/[*_~=]{1,3}/g, '');
}
