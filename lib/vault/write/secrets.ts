/**
 * The secrets guard: finds text that looks like a key, a token or a private key, so that no agent
 * write ever commits one. A finding is masked as its recognizable prefix followed by `…[masked]`
 * (`ghp_…[masked]`), enough for a person to know which credential leaked, never enough to use it.
 */

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

interface Detector {
  kind: string;
  pattern: RegExp;
  /** How many characters of the match stay readable (the prefix), or a function of the match. */
  keep: number | ((match: RegExpExecArray) => number);
  /** Extra check on the secret part (after `keep`): defaults to "looks random". */
  check?: (secret: string, match: RegExpExecArray) => boolean;
  /** Masks the whole block (private keys) instead of the tail. */
  mask?: (match: RegExpExecArray) => string;
  /** A key-name pattern (`api_key = …`): yields to a known token format found in the same place. */
  generic?: boolean;
}

const MASK = '…[masked]';

/** Shannon entropy in bits per character. */
function entropyOf(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** True for strings that look generated rather than written: digits and letters, varied, few repeats. */
function looksRandom(value: string): boolean {
  if (value.length < 16) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
  // words joined by dashes or underscores (`this-is-a-long-slug-2024`) are names, not keys
  const words = value.split(/[-_.]/).filter(Boolean);
  if (words.length > 2 && words.every((w) => /^[a-z]+$|^\d+$/.test(w))) return false;
  return entropyOf(value) >= 3.2;
}

const DETECTORS: Detector[] = [
  {
    kind: 'a private key',
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY(?: BLOCK)?-----|$)/g,
    keep: 0,
    check: (_secret, match) => match[0].length > 60,
    mask: (match) => `-----BEGIN ${match[1]}PRIVATE KEY-----${MASK}`,
  },
  { kind: 'an AWS access key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, keep: 4, check: () => true },
  {
    kind: 'an AWS secret key',
    pattern: /\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    keep: (m) => m[0].length - m[1].length,
  },
  { kind: 'a GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,255}\b/g, keep: 4 },
  { kind: 'a GitHub token', pattern: /\bgithub_pat_[A-Za-z0-9_]{40,255}\b/g, keep: 11 },
  { kind: 'an Anthropic API key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, keep: 7 },
  { kind: 'an OpenAI API key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, keep: 3 },
  { kind: 'a Stripe key', pattern: /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g, keep: 8 },
  { kind: 'a Slack token', pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g, keep: 5 },
  { kind: 'a Slack webhook', pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g, keep: 33, check: () => true },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, keep: 4 },
  { kind: 'a GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, keep: 6 },
  { kind: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, keep: 4 },
  {
    kind: 'a JSON Web Token',
    pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
    keep: 3,
    check: () => true,
  },
  {
    kind: 'a password in a URL',
    pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s:/@]{6,})@/gi,
    keep: (m) => m[0].length - m[1].length - 1,
    check: (_secret, m) => !/^\$\{?[A-Z_]+\}?$|^<[^>]*>$|^\*+$|^(password|passwd|pass|secret|changeme|example|pw)$/i.test(m[1]),
    mask: (m) => `${m[0].slice(0, m[0].length - m[1].length - 1)}${MASK}@`,
  },
  {
    kind: 'a credential',
    pattern:
      /\b((?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|apikey|secret(?:[_-]?key)?|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer|token|password|passwd|pwd))["']?\s*(?:[:=]|=>)\s*["']?([^\s"'`,;]{16,})/gi,
    keep: (m) => m[0].length - m[2].length,
    generic: true,
  },
  { kind: 'a bearer token', pattern: /\bAuthorization:\s*Bearer\s+([A-Za-z0-9._~+/-]{20,}=*)/gi, keep: (m) => m[0].length - m[1].length, generic: true },
];

/**
 * Every value in `text` that looks like a secret, in order, overlapping findings merged (a private
 * key block is reported once). Placeholders (`<your-key>`, `${TOKEN}`, `xxxx…`) are not secrets.
 */
export function findSecrets(text: string): SecretFinding[] {
  const found: (SecretFinding & { generic: boolean })[] = [];
  for (const detector of DETECTORS) {
    detector.pattern.lastIndex = 0;
    let match: RegExpExecArray | null;
    while ((match = detector.pattern.exec(text))) {
      if (match[0].length === 0) {
        detector.pattern.lastIndex += 1;
        continue;
      }
      const keep = typeof detector.keep === 'number' ? detector.keep : detector.keep(match);
      const secret = match[0].slice(keep);
      if (/^(x+|\*+|<[^>]*>|\$\{?[A-Za-z_]+\}?|\{\{[^}]*\}\})$/i.test(secret)) continue;
      const ok = detector.check ? detector.check(secret, match) : looksRandom(secret);
      if (!ok) continue;
      const masked = detector.mask ? detector.mask(match) : `${match[0].slice(0, keep)}${MASK}`;
      found.push({ kind: detector.kind, start: match.index, end: match.index + match[0].length, masked, generic: Boolean(detector.generic) });
    }
  }
  const specific = found.filter((f) => !f.generic);
  const kept = found.filter((f) => !f.generic || !specific.some((s) => s.start < f.end && f.start < s.end));
  kept.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretFinding[] = [];
  for (const { generic: _generic, ...finding } of kept) {
    const last = merged[merged.length - 1];
    if (last && finding.start < last.end) continue;
    merged.push(finding);
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
