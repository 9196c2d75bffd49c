/**
 * The rules the secrets guard runs: secretlint's recommended preset (a maintained rule set, run in
 * process and synchronously, downloading nothing), and Lucid's own rules for what the preset lacks
 * (Stripe and Google keys, JSON Web Tokens, loose OpenAI and Anthropic keys, AWS key ids, private
 * key blocks of any length, `api_key = …` / `API KEY: …` / `password = …` assignments, bearer
 * headers, passwords in URLs, and tokens glued to a word such as `MY_VAR_ghp_…` or `MYVARhf_…`).
 *
 * Every own pattern is linear on any input: no nested quantifier, no unbounded repeat that can be
 * tried again from each position of a long run (a lookbehind lets a run start a match only once,
 * and repeats are bounded).
 */
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';

/** A finding before masking: what it is, where, and how many of its characters stay readable. */
export interface RawFinding {
  kind: string;
  start: number;
  end: number;
  /** Characters at the start of the match left readable (the token's prefix, the key name). */
  keep: number;
  /** The replacement, when it is not the kept prefix plus the mask. */
  masked?: string;
  /** 0: an own rule for a known format; 1: the preset; 2: an own key-name rule (yields to the others). */
  rank: 0 | 1 | 2;
}

/** The mask that replaces a secret's readable tail. */
export const MASK = '…[masked]';

interface Detector {
  kind: string;
  pattern: RegExp;
  keep: number | ((match: RegExpExecArray) => number);
  /** Extra check on the secret part (after `keep`): defaults to "looks random". */
  check?: (secret: string, match: RegExpExecArray) => boolean;
  mask?: (match: RegExpExecArray) => string;
  generic?: boolean;
}

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

/** A token body of letters (and maybe digits) in mixed case, varied: Hugging Face tokens are letters only. */
function looksLikeToken(value: string): boolean {
  const classes = Number(/[a-z]/.test(value)) + Number(/[A-Z]/.test(value)) + Number(/[0-9]/.test(value));
  return value.length >= 30 && classes >= 2 && entropyOf(value) >= 3.5;
}

/** A password: 8 or more characters with a letter and a digit or symbol, or random-looking. */
function looksLikePassword(value: string): boolean {
  if (looksRandom(value)) return true;
  if (value.length < 8 || !/[A-Za-z]/.test(value)) return false;
  if (!/[0-9]/.test(value)) return false;
  const words = value.split(/[-_.]/).filter(Boolean);
  return !(words.length > 1 && words.every((w) => /^[a-z]+$|^\d+$/.test(w)));
}

/** Values that stand for a secret without being one: `<your-key>`, `${TOKEN}`, `xxxx`, `sk-...`, `changeme`. */
function isPlaceholder(value: string): boolean {
  if (value.length > 300) return false;
  return (
    /^(?:x+|\*+|<[^<>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{[^{}]*\}\}|%[A-Za-z_]+%)$/i.test(value) ||
    /(?:\.\.\.|…)$/.test(value) ||
    /^(?:password|passwd|pass|secret|changeme|example|redacted|none|null|undefined|pw)$/i.test(value)
  );
}

// A key name, a quote, the separator, then the value on the same line or on one of the next two
// lines (a value appended after `password = ` on its own, with the blank line append puts between).
// A literal, so the ReDoS check (tests/unit/redos.spec.ts) reads it.
const CREDENTIAL =
  /(?:api[ _-]?key|apikey|secret[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|access[_-]?key|private[_-]?key|secret|token|bearer|password|passwd|passphrase|pwd)["']?[ \t]*(?:=>|:=|[:=])[ \t]*(?:\r?\n[ \t]*){0,2}["']?([^\s"'`,;]{8,200})/gi;

const OWN: Detector[] = [
  { kind: 'an AWS access key', pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![0-9A-Z])/g, keep: 4, check: () => true },
  {
    kind: 'an AWS secret key',
    pattern: /aws_?secret_?access_?key["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    keep: (m) => m[0].length - m[1].length,
  },
  // No word boundary in front: a token glued to a name (`MY_VAR_ghp_…`, `TOKENghp_…`) is still a token.
  { kind: 'a GitHub token', pattern: /gh[pousr]_[A-Za-z0-9]{30,255}(?![A-Za-z0-9])/g, keep: 4 },
  { kind: 'a GitHub token', pattern: /github_pat_[A-Za-z0-9_]{40,255}(?![A-Za-z0-9_])/g, keep: 11 },
  { kind: 'a Hugging Face token', pattern: /hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9])/g, keep: 3, check: looksLikeToken },
  { kind: 'an Anthropic API key', pattern: /(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{20,300}/g, keep: 7 },
  { kind: 'an OpenAI API key', pattern: /(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}/g, keep: 3 },
  { kind: 'a Stripe key', pattern: /(?<![A-Za-z0-9])[rsp]k_(?:live|test)_[A-Za-z0-9]{16,255}(?![A-Za-z0-9])/g, keep: 8 },
  { kind: 'a Google API key', pattern: /AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, keep: 4 },
  {
    kind: 'a JSON Web Token',
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,4096}\.eyJ[A-Za-z0-9_-]{10,4096}\.[A-Za-z0-9_-]{10,4096}/g,
    keep: 3,
    check: () => true,
  },
  {
    kind: 'a password in a URL',
    pattern: /(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{1,256}:([^\s:/@]{6,256})@/gi,
    keep: (m) => m[0].length - m[1].length - 1,
    check: (_secret, m) => {
      const password = m[1].split(MASK).join('');
      return password.length > 0 && !isPlaceholder(password);
    },
    mask: (m) => `${m[0].slice(0, m[0].length - m[1].length - 1)}${MASK}@`,
  },
  {
    kind: 'a credential',
    pattern: CREDENTIAL,
    keep: (m) => m[0].length - m[1].length,
    check: (secret, m) =>
      /^(?:password|passwd|passphrase|pwd)/i.test(m[0]) ? looksLikePassword(secret) : looksRandom(secret) || /^[0-9a-f]{32,}$/i.test(secret),
    generic: true,
  },
  {
    kind: 'a bearer token',
    pattern: /Authorization:[ \t]*Bearer[ \t]+([A-Za-z0-9._~+/-]{20,2048}=*)/gi,
    keep: (m) => m[0].length - m[1].length,
    generic: true,
  },
];

function runOwn(text: string, out: RawFinding[]): void {
  for (const detector of OWN) {
    detector.pattern.lastIndex = 0;
    let match: RegExpExecArray | null;
    while ((match = detector.pattern.exec(text))) {
      const keep = typeof detector.keep === 'number' ? detector.keep : detector.keep(match);
      // A value Lucid masked before (`user:…[masked]@`) is not a secret; what is left around a mask may be.
      const secret = match[0].slice(keep).split(MASK).join('');
      if (secret.length === 0 || isPlaceholder(secret)) continue;
      if (!(detector.check ? detector.check(secret, match) : looksRandom(secret))) continue;
      out.push({
        kind: detector.kind,
        start: match.index,
        end: match.index + match[0].length,
        keep,
        masked: detector.mask?.(match),
        rank: detector.generic ? 2 : 0,
      });
    }
  }
}

const PRIVATE_KEY_BEGIN = /-----BEGIN ((?:[A-Z0-9]{1,20} ){0,4})PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Private key blocks: from a BEGIN line to its END line, or to the end of the text when the END is
 * not there (yet). A BEGIN line alone, or with only its END line, is not a secret; one with a body is.
 */
/** Characters other than white space and dashes between `start` and `end`: the body of a key block. */
function bodyLength(text: string, start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 45) count += 1;
  }
  return count;
}

function runPrivateKeys(text: string, out: RawFinding[]): void {
  PRIVATE_KEY_BEGIN.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = PRIVATE_KEY_BEGIN.exec(text))) {
    const marker = `-----END ${match[1]}PRIVATE KEY`;
    const endAt = text.indexOf(marker, match.index + match[0].length);
    let end = text.length;
    if (endAt >= 0) {
      const close = text.indexOf('-----', endAt + marker.length);
      end = close >= 0 && close - endAt < marker.length + 12 ? close + 5 : endAt + marker.length;
    }
    if (bodyLength(text, match.index + match[0].length, endAt >= 0 ? endAt : end) >= 24) {
      out.push({ kind: 'a private key', start: match.index, end, keep: 0, masked: `-----BEGIN ${match[1]}PRIVATE KEY-----${MASK}`, rank: 0 });
    }
    PRIVATE_KEY_BEGIN.lastIndex = Math.max(PRIVATE_KEY_BEGIN.lastIndex, end);
  }
}

interface PresetSource {
  content: string;
  filePath?: string;
  ext: string;
  contentType: 'text';
}
interface PresetRule {
  meta: { id: string };
  create(
    context: { createTranslator(): () => string; report(descriptor: { range: readonly [number, number] }): void; ignore(): void },
    options: Record<string, unknown>,
  ): { file?(source: PresetSource): unknown };
}

const PRESET_KINDS: Record<string, string> = {
  aws: 'an AWS key',
  gcp: 'a Google Cloud key',
  npm: 'an npm token',
  slack: 'a Slack token',
  basicauth: 'a password in a URL',
  openai: 'an OpenAI API key',
  anthropic: 'an Anthropic API key',
  groq: 'a Groq API key',
  huggingface: 'a Hugging Face token',
  linear: 'a Linear API key',
  notion: 'a Notion token',
  privatekey: 'a private key',
  sendgrid: 'a SendGrid key',
  shopify: 'a Shopify token',
  github: 'a GitHub token',
  gitlab: 'a GitLab token',
  grafana: 'a Grafana token',
  '1password': 'a 1Password token',
  'database-connection-string': 'a password in a connection string',
  'hashicorp-vault': 'a HashiCorp Vault token',
  vercel: 'a Vercel token',
  databricks: 'a Databricks token',
  docker: 'a Docker credential',
  figma: 'a Figma token',
};

let reported: [number, number][] = [];
// The comment filter is left out on purpose: a `secretlint-disable` comment in a note must not let an agent switch the guard off.
const PRESET = (presetRules as unknown as readonly PresetRule[])
  .filter((rule) => !rule.meta.id.endsWith('/secretlint-rule-filter-comments'))
  .map((rule) => {
    const name = rule.meta.id.replace('@secretlint/secretlint-rule-', '');
    const handler = rule.create(
      {
        createTranslator: () => () => '',
        report: (descriptor) => reported.push([descriptor.range[0], descriptor.range[1]]),
        ignore: () => {},
      },
      {},
    );
    return { kind: PRESET_KINDS[name] ?? `a ${name} secret`, handler };
  });

/** How much of a preset finding stays readable: a token's short prefix (`glpat-`, `xoxb-`), a URL's scheme. */
function presetKeep(match: string): number {
  const scheme = /^[a-z][a-z0-9+.-]{0,30}:\/\//i.exec(match);
  if (scheme) return scheme[0].length;
  const prefix = /^[A-Za-z]{2,10}[_-](?:[A-Za-z]{2,4}[_-])?/.exec(match);
  return prefix && prefix[0].length * 3 <= match.length ? prefix[0].length : 0;
}

/** Where the token running on from `at` ends: at the first character no key or token is made of (at most 512 further). */
function valueEnd(text: string, at: number): number {
  const limit = Math.min(text.length, at + 512);
  let end = at;
  while (end < limit && /[A-Za-z0-9/+=_-]/.test(text[end])) end += 1;
  return end;
}

function runPreset(text: string, out: RawFinding[]): void {
  const source: PresetSource = { content: text, ext: '.md', contentType: 'text' };
  for (const { kind, handler } of PRESET) {
    // Every text rule reports synchronously; only the .p12/.json file readers of the GCP rule are
    // asynchronous, and they never run on a note (the extension is .md, and there is no file path).
    const ranges = reportedBy(handler, source);
    for (const [start, reportedEnd] of ranges) {
      if (reportedEnd <= start) continue;
      const found = text.slice(start, reportedEnd);
      // Text Lucid masked before is a finding only if the rule still finds it with the masks taken out.
      if (found.includes(MASK) && reportedBy(handler, { ...source, content: found.split(MASK).join('') }).length === 0) continue;
      // Some rules report a range shorter than the value (the AWS secret key rule reports the key
      // name's offset with the value's length): the finding runs on to the end of the token.
      const end = valueEnd(text, reportedEnd);
      out.push({ kind, start, end, keep: presetKeep(text.slice(start, end)), rank: 1 });
    }
  }
}

function reportedBy(handler: { file?(source: PresetSource): unknown }, source: PresetSource): [number, number][] {
  reported = [];
  handler.file?.(source);
  const ranges = reported;
  reported = [];
  return ranges;
}

/** Every finding of every rule in `text`, unmerged. */
export function runSecretRules(text: string): RawFinding[] {
  const out: RawFinding[] = [];
  runPrivateKeys(text, out);
  runOwn(text, out);
  runPreset(text, out);
  return out;
}
