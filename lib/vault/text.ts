// Trimming in linear time. A regex anchored at the end (`/-+$/`, `/\n*$/`) is retried from every
// position of a run of the trimmed characters, so a long run costs its length squared; these walk
// from the end once.

/** `text` without the characters of `chars` at its end (what `text.replace(/[chars]+$/, '')` returns). */
export function trimEndOf(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1])) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the characters of `chars` at its start (what `text.replace(/^[chars]+/, '')` returns). */
export function trimStartOf(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text[start])) start += 1;
  return start === 0 ? text : text.slice(start);
}

/**
 * Where the line breaks at the end of `text` begin: the start of its longest suffix made of `\n` and
 * `\r\n` (what `/(\r?\n)*$/` matches). A `\r` not followed by `\n` is kept.
 */
export function trailingLineBreaksStart(text: string): number {
  let start = text.length;
  while (start > 0) {
    const c = text[start - 1];
    if (c === '\n' || (c === '\r' && start < text.length && text[start] === '\n')) start -= 1;
    else break;
  }
  return start;
}

/** The characters `\s` matches in a JavaScript regex, for {@link trimEndOf} and {@link trimStartOf}. */
export const WHITESPACE = '\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

/** One line of text for a commit message or a changelog line: no line breaks, no control characters. */
export function oneLine(value: string, max = 300): string {
  const cleaned = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
}
