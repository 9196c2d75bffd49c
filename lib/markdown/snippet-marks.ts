/**
 * A search snippet cut at its « » marks: what `text.split(/(«[^»]*»)/g)` returns (text, then a marked
 * part, then text…), in one pass; that regex is retried from every « of a long run without a ».
 */
export function splitMarks(text: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('«', from);
    if (open === -1) break;
    const close = text.indexOf('»', open + 1);
    if (close === -1) break;
    parts.push(text.slice(from, open), text.slice(open, close + 1));
    from = close + 1;
  }
  parts.push(text.slice(from));
  return parts;
}
