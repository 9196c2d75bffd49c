/**
 * The secrets guard: finds text that looks like a key, a token or a private key, so that no agent
 * write ever commits one. A finding is masked as its recognizable prefix followed by `…[masked]`
 * (`ghp_…[masked]`), enough for a person to know which credential leaked, never enough to use it.
 * The rules are in secret-rules.ts: secretlint's recommended preset and Lucid's own.
 */
import { VaultError, isVaultError } from '../errors';
import { MASK, runSecretRules } from './secret-rules';

/** One value that looks like a secret. */
export interface SecretFinding {
  /** What it looks like, in words: "a GitHub token", "a private key". */
  kind: string;
  /** Where it is in the text (UTF-16 offsets). */
  start: number;
  end: number;
  /** What replaces it. */
  masked: string;
}

/**
 * Every value in `text` that looks like a secret, in order, overlapping findings merged (a private
 * key block is reported once). Placeholders (`<your-key>`, `${TOKEN}`, `xxxx…`) are not secrets.
 */
export function findSecrets(text: string): SecretFinding[] {
  const found = runSecretRules(text);
  // A known format wins over a key-name rule in the same place, and an own rule (whose mask keeps
  // a readable prefix) over the preset's finding of the same value.
  found.sort((a, b) => a.start - b.start || a.rank - b.rank || b.end - a.end);
  const spans: [number, number][] = [];
  for (const f of found) {
    if (f.rank === 2) continue;
    const last = spans[spans.length - 1];
    if (last && f.start < last[1]) last[1] = Math.max(last[1], f.end);
    else spans.push([f.start, f.end]);
  }
  let at = 0;
  const kept = found.filter((f) => {
    if (f.rank < 2) return true;
    while (at < spans.length && spans[at][1] <= f.start) at += 1;
    return !(at < spans.length && spans[at][0] < f.end);
  });
  const merged: SecretFinding[] = [];
  for (const f of kept) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) {
      if (f.end > last.end) last.end = f.end;
      continue;
    }
    merged.push({ kind: f.kind, start: f.start, end: f.end, masked: f.masked ?? `${text.slice(f.start, f.start + f.keep)}${MASK}` });
  }
  return merged;
}

/** `text` with every secret-looking value masked, and what was found. */
export function maskSecrets(text: string): { text: string; findings: SecretFinding[] } {
  const findings = findSecrets(text);
  if (findings.length === 0) return { text, findings };
  let out = '';
  let at = 0;
  for (const finding of findings) {
    out += text.slice(at, finding.start) + finding.masked;
    at = finding.end;
  }
  return { text: out + text.slice(at), findings };
}

/** "a GitHub token and a private key": the kinds found, for a reply. */
export function describeSecrets(findings: SecretFinding[]): string {
  const kinds = [...new Set(findings.map((f) => f.kind))];
  if (kinds.length <= 1) return kinds[0] ?? 'nothing';
  return `${kinds.slice(0, -1).join(', ')} and ${kinds[kinds.length - 1]}`;
}

/** Lines of context scanned on each side of a change: up to this many non-blank lines. */
const NEIGHBOURS = 2;
/** At most this many lines (blank ones included) of context on each side. */
const MAX_CONTEXT_LINES = 8;

function lineStart(text: string, at: number): number {
  return at <= 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const newline = text.indexOf('\n', at);
  return newline < 0 ? text.length : newline + 1;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/** True when the line of `x` at `xi` and the line of `y` at `yi` are the same text (an end of text is no line). */
function sameLine(x: string, xi: number, y: string, yi: number): boolean {
  if (xi >= x.length || yi >= y.length) return false;
  for (let i = 0; ; i += 1) {
    const cx = xi + i < x.length ? x.charCodeAt(xi + i) : -1;
    const cy = yi + i < y.length ? y.charCodeAt(yi + i) : -1;
    if (cx !== cy) return false;
    if (cx === -1 || cx === 10) return true;
  }
}

const BLOCK = 1024;

/** How many characters `x` from `xi` and `y` from `yi` have in common (compared a block at a time). */
function commonPrefix(x: string, xi: number, y: string, yi: number): number {
  const max = Math.min(x.length - xi, y.length - yi);
  let n = 0;
  while (n + BLOCK <= max && x.slice(xi + n, xi + n + BLOCK) === y.slice(yi + n, yi + n + BLOCK)) n += BLOCK;
  while (n < max && x.charCodeAt(xi + n) === y.charCodeAt(yi + n)) n += 1;
  return n;
}

/** How many characters the ends of `x` (from `xi` on) and `y` (from `yi` on) have in common. */
function commonSuffix(x: string, xi: number, y: string, yi: number): number {
  const max = Math.min(x.length - xi, y.length - yi);
  let n = 0;
  while (n + BLOCK <= max && x.slice(x.length - n - BLOCK, x.length - n) === y.slice(y.length - n - BLOCK, y.length - n)) n += BLOCK;
  while (n < max && x.charCodeAt(x.length - 1 - n) === y.charCodeAt(y.length - 1 - n)) n += 1;
  return n;
}

/** Changed runs of lines found one by one before the rest is taken as one run. */
const MAX_HUNKS = 16;

/**
 * The lines of `after` an edit changed, as line-aligned [start, end) ranges in order: together they
 * cover every line that is not the same as in `before` (all of `after` when there was no file).
 * Equal text is skipped, then one line replaced, inserted or removed at a time, so an append that
 * also changes `updated:` in the front matter is two small ranges, not the whole note. Linear.
 */
function changedRanges(before: string | null, after: string): [number, number][] {
  if (before === null) return [[0, after.length]];
  const ranges: [number, number][] = [];
  let a = 0;
  let b = 0;
  for (let hunk = 0; hunk < MAX_HUNKS; hunk += 1) {
    const n = commonPrefix(after, a, before, b);
    if (a + n === after.length && b + n === before.length) return ranges;
    const pa = Math.max(a, lineStart(after, a + n));
    const pb = b + (pa - a);
    if (pa >= after.length) {
      // lines removed at the end: the last line left is the one they joined
      ranges.push([lineStart(after, Math.max(0, after.length - 1)), after.length]);
      return ranges;
    }
    if (pb >= before.length) {
      ranges.push([pa, after.length]);
      return ranges;
    }
    const la = lineEnd(after, pa);
    const lb = lineEnd(before, pb);
    ranges.push([pa, la]);
    if (sameLine(after, la, before, pb)) {
      a = la; // a line inserted
      b = pb;
    } else if (sameLine(after, pa, before, lb)) {
      a = pa; // a line removed: the line after it counts as changed (it joined the one before)
      b = lb;
    } else {
      a = la; // a line replaced
      b = lb;
    }
  }
  const last = after.length - commonSuffix(after, a, before, b);
  ranges.push([a, last > a ? lineEnd(after, last - 1) : lineEnd(after, a)]);
  return ranges;
}

/** The change with its neighbouring lines, and with the whole of a private key block it falls in. */
function scanWindow(after: string, [start, end]: [number, number]): [number, number] {
  let from = start;
  for (let lines = 0, text = 0; from > 0 && lines < MAX_CONTEXT_LINES && text < NEIGHBOURS; lines += 1) {
    const s = lineStart(after, from - 1);
    if (!isBlank(after, s, from)) text += 1;
    from = s;
  }
  let to = end;
  for (let lines = 0, text = 0; to < after.length && lines < MAX_CONTEXT_LINES && text < NEIGHBOURS; lines += 1) {
    const e = lineEnd(after, to);
    if (!isBlank(after, to, e)) text += 1;
    to = e;
  }
  // A key sent in parts (the BEGIN line, then the body, then the END line) is one secret.
  const begin = from > 0 ? after.lastIndexOf('-----BEGIN ', from - 1) : -1;
  if (begin >= 0) {
    const close = after.indexOf('-----END ', begin);
    if (close < 0 || close >= from) from = lineStart(after, begin);
  }
  const lastBegin = after.lastIndexOf('-----BEGIN ', to - 1);
  if (lastBegin >= from) {
    const close = after.indexOf('-----END ', lastBegin);
    to = close < 0 ? after.length : Math.max(to, lineEnd(after, close));
  }
  return [from, to];
}

/**
 * The secrets an edit adds when it turns `before` (null: the file is new) into `after`: the
 * findings that overlap the lines it changed, scanned together with their neighbouring lines (two
 * non-blank lines each side, and the whole of a private key block the change falls in), so a
 * secret completed across writes is caught: `db password = ` then the value, a key's BEGIN line
 * then its body. A finding whose text `before` already held does not count: a secret committed
 * earlier does not block writes to other parts of the file. Offsets are in `after`.
 */
export function findAddedSecrets(before: string | null, after: string): SecretFinding[] {
  if (before === after) return [];
  const windows: { from: number; to: number; ranges: [number, number][] }[] = [];
  for (const range of changedRanges(before, after)) {
    const [from, to] = scanWindow(after, range);
    const last = windows[windows.length - 1];
    if (last && from <= last.to) {
      last.to = Math.max(last.to, to);
      last.ranges.push(range);
    } else {
      windows.push({ from, to, ranges: [range] });
    }
  }
  const found: SecretFinding[] = [];
  for (const { from, to, ranges } of windows) {
    for (const finding of findSecrets(after.slice(from, to))) {
      const start = finding.start + from;
      const end = finding.end + from;
      // a pure removal leaves an empty range: a finding across the place it joined counts
      if (!ranges.some(([s, e]) => (s === e ? start < s && end > s : start < e && end > s))) continue;
      if (before?.includes(after.slice(start, end))) continue;
      found.push({ ...finding, start, end });
    }
  }
  return found;
}

/** The readable prefix a finding keeps: what its mask starts with, when the text starts with it too. */
function keptPrefix(text: string, finding: SecretFinding): number {
  const prefix = finding.masked.slice(0, Math.max(0, finding.masked.indexOf(MASK)));
  return text.startsWith(prefix, finding.start) ? prefix.length : 0;
}

/**
 * The secret parts of `findings` in `text`, line by line (a key's body lines, a value appended on
 * its own): what must be masked wherever it appears, e.g. in the part of the edit an agent sent.
 */
function secretPieces(text: string, findings: readonly SecretFinding[]): string[] {
  const pieces = new Set<string>();
  for (const finding of findings) {
    const secret = text.slice(finding.start + keptPrefix(text, finding), finding.end);
    for (const line of secret.split('\n')) {
      const piece = line.trim();
      if (piece.length >= 4) pieces.add(piece);
    }
  }
  return [...pieces].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of `pieces` masked. */
function maskPieces(text: string, pieces: readonly string[]): string {
  let out = text;
  for (const piece of pieces) out = out.split(piece).join(MASK);
  return out;
}

/** Where a refused secret was: in what the edit adds, or in a person's uncommitted version of a file it touches. */
export type SecretSource = 'edit' | 'uncommitted';

interface Refusal {
  where: SecretSource;
  path: string;
  findings: SecretFinding[];
  pieces: string[];
}

// Kept beside the error, not on it: the secret's text never travels with the error (logs, replies).
const REFUSALS = new WeakMap<VaultError, Refusal>();

/**
 * The error the write path throws instead of committing a secret (code `forbidden`): what it looks
 * like and where, masked. `where` tells whether the edit added it or a person's uncommitted version
 * of `path` holds it; `refusedSecret` gives the caller what it needs to file the write in the inbox.
 */
export function secretRefusal(where: SecretSource, path: string, text: string, findings: SecretFinding[]): VaultError {
  const masked = findings.map((f) => f.masked).join(', ');
  const message =
    where === 'edit'
      ? `${path} was not written: the change would commit what looks like ${describeSecrets(findings)} (${masked}), and Lucid never commits secrets. Write it again without the secret (name where it is kept instead).`
      : `${path} has uncommitted changes that hold what looks like ${describeSecrets(findings)} (${masked}); Lucid never commits secrets, so it neither saved them nor wrote over them. Remove the secret from ${path} (keep it in a secret manager), or commit the file yourself, then try again.`;
  const error = new VaultError('forbidden', message, { secret: where, path, kinds: [...new Set(findings.map((f) => f.kind))] });
  REFUSALS.set(error, { where, path, findings: findings.map((f) => ({ ...f })), pieces: secretPieces(text, findings) });
  return error;
}

/**
 * What a refusal made by `secretRefusal` was about, with `mask`, which masks its secret wherever it
 * appears in a text (the agent's content, when the refused write goes to the inbox instead); null
 * for any other error.
 */
export function refusedSecret(error: unknown): { where: SecretSource; path: string; findings: SecretFinding[]; mask(text: string): string } | null {
  const refusal = isVaultError(error, 'forbidden') ? REFUSALS.get(error) : undefined;
  if (!refusal) return null;
  return {
    where: refusal.where,
    path: refusal.path,
    findings: refusal.findings,
    mask: (text) => maskSecrets(maskPieces(text, refusal.pieces)).text,
  };
}

/**
 * Refuses a path, reason or other text that ends up in a commit message or the changelog when it
 * holds what looks like a secret (`what` names it: "path", "reason", "inbox target"); the message
 * shows it masked.
 */
export function assertNoSecret(what: string, text: string): void {
  const { text: masked, findings } = maskSecrets(text);
  if (findings.length === 0) return;
  throw new VaultError(
    'forbidden',
    `The ${what} ${JSON.stringify(masked)} holds what looks like ${describeSecrets(findings)}, and Lucid never commits secrets (a ${what} goes into commit messages and the changelog). Use a ${what} without it.`,
    { secret: 'name', kinds: [...new Set(findings.map((f) => f.kind))] },
  );
}
