import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitMarks } from '../../lib/markdown/snippet-marks';
import { agentSlug } from '../../lib/vault/agents/common';
import { firstHeading } from '../../lib/vault/agents/session-context';
import { parseChangelogLine } from '../../lib/vault/git/changelog';
import { parseCommitMessage } from '../../lib/vault/git/commit-message';
import { slugify } from '../../lib/vault/ids';
import { parseFrontmatter } from '../../lib/vault/notes/frontmatter';
import { findWikilinks } from '../../lib/vault/notes/links';
import { trailingLineBreaksStart, trimEndOf, trimStartOf } from '../../lib/vault/text';
import { capCounts, checkPatterns, collectRegexes, findSuperLinear, keyOf, readVerdictCache, regexesOf } from '../../scripts/check-redos';

const ROOT = path.resolve('.');
const MB = 1 << 20;

/**
 * Super-linear regexes left in place, by file and pattern, each with the reason. Only for regexes
 * that never see input a note, an agent or a request controls; an entry whose regex is gone fails
 * the test, so the list cannot go stale.
 */
const ALLOWED: { file: string; source: string; why: string }[] = [
  // recheck's fuzzer calls these two polynomial on some runs and not on others (its verdict depends on
  // how far it gets in its time budget). Each match attempt is bounded before anything unbounded: a
  // keyword of at most 17 characters must match first; after it, the runs of [ \t]* cannot overlap
  // `\r?\n`, the separator or the value's class, and the value is bounded ({8,200}, {40}). Every attack
  // it reported (e.g. 'CA'.repeat(n) + 'Y', 'S\x00'.repeat(n), 'TCLIENTSECRE'.repeat(n),
  // 'AWSSECRETACEY=C\x00'.repeat(n)) runs in linear time in V8: four times the input, four times the time.
  {
    file: 'lib/vault/write/secret-rules.ts',
    source:
      /(?:api[ _-]?key|apikey|secret[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|access[_-]?key|private[_-]?key|secret|token|bearer|password|passwd|passphrase|pwd)["']?[ \t]*(?:=>|:=|[:=])[ \t]*(?:\r?\n[ \t]*){0,2}["']?([^\s"'`,;]{8,200})/
        .source,
    why: "bounded per match attempt; the fuzzer's verdict is not stable",
  },
  {
    file: 'lib/vault/write/secret-rules.ts',
    source: /aws_?secret_?access_?key["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/.source,
    why: "bounded per match attempt; the fuzzer's verdict is not stable",
  },
];

describe('the ReDoS check', () => {
  it('finds regex literals and RegExp calls with constant patterns, with their lines, and names the ones built from variables', () => {
    const source = [
      'const a = /x+$/g;',
      "const b = new RegExp('(a|a)*b', 'i');",
      'const c = RegExp(`^c$`);',
      'const d = new RegExp(pattern);',
      "const e = 'not /a regex/';",
    ].join('\n');
    const { found, dynamic, errors } = regexesOf('planted.ts', source);
    expect(errors).toEqual([]);
    expect(found).toEqual([
      { file: 'planted.ts', line: 1, source: 'x+$', flags: 'g' },
      { file: 'planted.ts', line: 2, source: '(a|a)*b', flags: 'i' },
      { file: 'planted.ts', line: 3, source: '^c$', flags: '' },
    ]);
    expect(dynamic).toEqual([4]);
  });

  it('caps counted repetitions outside classes and escapes, keeping unbounded ones unbounded', () => {
    expect(capCounts('[A-Z]{20,}x{40}y{0,255}z{1,2}')).toBe('[A-Z]{2,}x{2}y{0,3}z{1,2}');
    expect(capCounts(String.raw`[{20,}]\{20,}a{3,}`)).toBe(String.raw`[{20,}]\{20,}a{2,}`);
  });

  it("reports the append's old trailing-newline regex with an attack, and passes a linear one", async () => {
    const verdicts = await checkPatterns(
      [
        { source: String.raw`(\r?\n)*$`, flags: '' },
        { source: '^[a-z]+$', flags: '' },
      ],
      1,
    );
    expect(verdicts.get(String.raw`/(\r?\n)*$/`)).toMatchObject({ status: 'vulnerable', attack: expect.stringContaining('repeat') });
    expect(verdicts.get('/^[a-z]+$/')).toEqual({ status: 'safe' });
  });

  it('finds no super-linear regex in lib/, cli/, mcp/, app/, components/ or proxy.ts (recheck on each pattern not in the last full pass)', async () => {
    const { found, dynamic, errors } = collectRegexes(ROOT);
    expect(errors).toEqual([]);
    expect(found.length).toBeGreaterThan(100);
    // A RegExp built from a variable cannot be checked here: none may appear unseen.
    expect(dynamic).toEqual([]);
    // Each distinct pattern once; a pattern the last full pass (scripts/redos-verdicts.json) judged keeps
    // that verdict, a new or changed one goes to recheck now. The full pass over every pattern is
    // tests/unit/redos.stress.spec.ts (`npm run test:stress`).
    const cache = readVerdictCache();
    const { findings, unknown, verdicts, checked } = await findSuperLinear(found, undefined, cache);
    expect(verdicts.size).toBe(new Set(found.map(keyOf)).size);
    const excused = [...ALLOWED];
    const isExcused = (f: { file: string; source: string }) => excused.some((e) => e.file === f.file && e.source === f.source);
    const report = findings.filter((f) => !isExcused(f)).map((f) => `${f.file}:${f.line}: /${f.source}/${f.flags} is ${f.complexity}; attack: ${f.attack}`);
    expect(report).toEqual([]);
    expect(unknown.map((u) => `${u.file}:${u.line}: /${u.source}/${u.flags}: recheck could not decide (${u.error})`)).toEqual([]);
    const stale = excused
      .filter((e) => !found.some((f) => f.file === e.file && f.source === e.source))
      .map((e) => `${e.file}: /${e.source}/ is gone: remove its entry`);
    expect(stale).toEqual([]);
    // Verdicts of patterns no longer in the code: `node --import tsx scripts/check-redos.ts --write-cache` rewrites the file.
    expect([...cache.keys()].filter((key) => !verdicts.has(key))).toEqual([]);
    console.info(`redos: ${found.length} regexes, ${verdicts.size} distinct, ${checked} checked by recheck now, the rest from the last full pass`);
  });
});

/** Random strings over `alphabet`'s tokens, reproducible. */
function* randomTexts(alphabet: string[], count: number, maxTokens: number): Generator<string> {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < count; i += 1) {
    let text = '';
    const n = next(maxTokens + 1);
    for (let j = 0; j < n; j += 1) text += alphabet[next(alphabet.length)];
    yield text;
  }
}

describe('the linear rewrites give what the regexes gave', () => {
  it('trimEndOf, trimStartOf and trailingLineBreaksStart, on random text and on 1 MB runs', () => {
    for (const text of randomTexts(['-', '/', '\n', '\r', ' ', '.', 'a'], 5000, 10)) {
      expect(trimEndOf(text, '-')).toBe(text.replace(/-+$/, ''));
      expect(trimEndOf(text, '. ')).toBe(text.replace(/[. ]+$/, ''));
      expect(trimStartOf(trimEndOf(text, '/'), '/')).toBe(text.replace(/^\/+|\/+$/g, ''));
      expect(text.slice(0, trailingLineBreaksStart(text))).toBe(text.replace(/(\r?\n)*$/, ''));
    }
    expect(trimEndOf(`${'-'.repeat(MB)}\0-`, '-')).toBe(`${'-'.repeat(MB)}\0`);
    expect(trimEndOf(`${' '.repeat(MB)}\0 `, '. ')).toBe(`${' '.repeat(MB)}\0`);
    const blank = `x${'\n\r'.repeat(MB / 2)}\0`;
    expect(trailingLineBreaksStart(blank)).toBe(blank.length);
    expect(trailingLineBreaksStart(`x\r${'\r\n'.repeat(MB / 2)}`)).toBe(2);
  });

  it('slugify and agentSlug on 1 MB of dashes and letters', () => {
    expect(slugify(`${'-'.repeat(MB)}Claude Code${'-'.repeat(MB)}`)).toBe('claude-code');
    expect(slugify(`Claude Code${'-'.repeat(MB)}x`)).toBe('claude-code-x');
    expect(agentSlug(`agent:Claude Code${'-'.repeat(MB)}`)).toBe('claude-code');
  });

  it('parseCommitMessage drops trailing newlines of a 1 MB run', () => {
    expect(parseCommitMessage(`subject\n\nbody${'\n'.repeat(MB)}`)).toMatchObject({ subject: 'subject', body: 'body' });
    expect(parseCommitMessage(`subject\n\nbody${'\n'.repeat(MB)}\0\n`).body).toBe('body\n\n\0');
    expect(parseCommitMessage(`subject${'\n'.repeat(MB)}`).subject).toBe('subject');
  });

  it('firstHeading matches the old heading regex on random bodies and reads a 1 MB line of tabs', () => {
    const regex = /^#\s+(.+?)\s*#*\s*$/m;
    let matched = 0;
    for (const body of randomTexts(['#', ' ', '\t', '\n', '\r', 'a', 'b c', '\u2028', '\u00a0', '##', 'x#'], 20_000, 10)) {
      const want = regex.exec(body)?.[1];
      if (want !== undefined) matched += 1;
      expect(firstHeading(body)).toBe(want);
    }
    expect(matched).toBeGreaterThan(1000);
    expect(firstHeading(`#\t\0${'\t'.repeat(MB)}\t\0`)).toBe(`\0${'\t'.repeat(MB + 1)}\0`);
    expect(firstHeading(`# Title${' '.repeat(MB)}#${' '.repeat(MB)}\nbody`)).toBe('Title');
  });

  it('parseChangelogLine matches the old line regex on random lines and parses or refuses 1 MB lines', () => {
    const regex =
      /^- (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) · (\S.*?) · (\S+) (?:\[\[([^\]]+)\]\]|\[[^\]]*\]\(([^)\s]+)\))(?: · (.*?))?(?: · \[\[([^\]|]+)\|session\]\])? \^(e[a-z2-7]{12})\s*$/;
    const tokens = [
      ' · ',
      '[[',
      ']]',
      '[',
      ']',
      '(',
      ')',
      '|',
      '|session]]',
      ' ',
      'a',
      'op',
      '\n',
      '\t',
      ' ^eabcdefghijkl',
      '[[s|session]]',
      ' · [[',
      'x y',
      '%4',
    ];
    let matched = 0;
    let i = 0;
    const noise = [...randomTexts(tokens, 200_000, 2)];
    const pick = () => noise[(i * 7919 + noise.length) % noise.length] ?? '';
    for (const middle of randomTexts(tokens, 30_000, 3)) {
      i += 1;
      // The line's parts, each with random noise: near misses of every part are drawn as often as hits.
      const parts = [
        `a${pick()}`,
        ' · ',
        `op${noise[(i * 31) % noise.length]}`,
        ' ',
        i % 2 ? `[[n${noise[(i * 17) % noise.length]}]]` : `[t](u${noise[(i * 13) % noise.length]})`,
      ];
      if (i % 3 === 0) parts.push(' · ', `why${middle}`);
      if (i % 4 === 0) parts.push(' · [[', `s${noise[(i * 23) % noise.length]}`, '|session]]');
      if (i % 7 === 0) parts.push(middle);
      const line = `- 2026-01-02 03:04 · ${parts.join('')}${i % 11 ? ' ^eabcdefghijkl' : ''}${i % 5 ? '' : ' \n'}`;
      const m = regex.exec(line);
      const got = parseChangelogLine(line);
      if (!m) {
        expect(got).toBeNull();
        continue;
      }
      matched += 1;
      const [, date, time, actor, op, wiki, markdown, reason = '', session, editId] = m;
      expect(got).toMatchObject({ date, time, actor, op, reason, editId, session: session ? session.slice(session.lastIndexOf('/') + 1) : null });
      expect(got?.target).toBe(
        wiki
          ? `${wiki}.md`
          : (() => {
              try {
                return decodeURIComponent(markdown);
              } catch {
                return markdown;
              }
            })(),
      );
    }
    expect(matched).toBeGreaterThan(1000);
    const k = Math.floor(MB / 14);
    const attack = `- 2026-01-02 22:02 · i${' · n [[e]] · ^'.repeat(k)}\n`;
    expect(parseChangelogLine(attack)).toBeNull();
    const long = `- 2026-01-02 22:02 · human:Ada${' · n [[e]] · ^'.repeat(k)} ^eabcdefghijkl`;
    expect(parseChangelogLine(long)).toMatchObject({
      actor: 'human:Ada',
      op: 'n',
      target: 'e.md',
      editId: 'eabcdefghijkl',
      reason: `^${' · n [[e]] · ^'.repeat(k - 1)}`,
    });
    const unclosed = `- 2026-01-02 22:02 · a${' · o [['.repeat(Math.floor(MB / 7))} ^eabcdefghijkl`;
    expect(parseChangelogLine(unclosed)).toBeNull();
  });

  it('the {{placeholder}} hint of a front-matter error is given for 60 KB of {{ only when a }} closes one (the most front matter holds)', () => {
    const hint = 'an unfilled {{placeholder}}';
    // Front matter is refused past 64 KiB or 64 levels of brackets: `{{]]` keeps the depth low.
    const without = parseFrontmatter(`---\n? [a]\n: b\n# ${'{{]]'.repeat(15_000)}\n---\n`);
    const withOne = parseFrontmatter(`---\n? [a]\n: b\n# ${'{{]]'.repeat(15_000)}}}\n---\n`);
    expect(without.ok).toBe(false);
    expect(withOne.ok).toBe(false);
    expect(without.ok ? '' : without.error).not.toContain(hint);
    expect(withOne.ok ? '' : withOne.error).toContain(hint);
  });

  it('splitMarks splits like the old split regex, and keeps 1 MB of « unmarked', () => {
    for (const text of randomTexts(['«', '»', 'a', ' '], 5000, 10)) expect(splitMarks(text)).toEqual(text.split(/(«[^»]*»)/g));
    const many = '«'.repeat(MB);
    expect(splitMarks(many)).toEqual([many]);
    expect(splitMarks(`${many}»`)).toEqual(['', `${many}»`, '']);
  });
});

// findWikilinks before it stopped rescanning for `]]` from every `[[`: the reference for the test below.
function oldFindWikilinks(text: string, hidden: readonly (readonly [number, number])[] = []): unknown[] {
  const matches: unknown[] = [];
  let hiddenIndex = 0;
  let from = 0;
  for (;;) {
    const open = text.indexOf('[[', from);
    if (open < 0) break;
    while (hiddenIndex < hidden.length && hidden[hiddenIndex][1] <= open) hiddenIndex++;
    const next = hidden[hiddenIndex];
    if (next && next[0] <= open) {
      from = next[1];
      continue;
    }
    const close = text.indexOf(']]', open + 2);
    const limit = next ? next[0] : text.length;
    if (close < 0 || close + 2 > limit) {
      from = open + 2;
      continue;
    }
    const start = text.lastIndexOf('[[', close - 2);
    const inner = text.slice(start + 2, close);
    from = close + 2;
    if (inner.includes('\n') || isEscaped(text, start)) {
      from = start + 2;
      continue;
    }
    const parsed = splitWikiInner(inner);
    if (!parsed) continue;
    const embed = start > 0 && text[start - 1] === '!' && !isEscaped(text, start - 1);
    matches.push({ start: embed ? start - 1 : start, end: close + 2, embed, ...parsed });
  }
  return matches;
}

function splitWikiInner(inner: string): { target: string; subpath?: string; display?: string } | null {
  let pathPart = inner;
  let display: string | undefined;
  const pipe = inner.indexOf('|');
  if (pipe >= 0) {
    pathPart = inner.slice(0, pipe);
    display = inner.slice(pipe + 1);
    if (pathPart.endsWith('\\')) pathPart = pathPart.slice(0, -1);
  }
  const hash = pathPart.indexOf('#');
  const target = (hash >= 0 ? pathPart.slice(0, hash) : pathPart).trim();
  const subpath = hash >= 0 ? pathPart.slice(hash + 1).trim() : '';
  if (target === '' && subpath === '') return null;
  const result: { target: string; subpath?: string; display?: string } = { target };
  if (subpath !== '') result.subpath = subpath;
  if (display !== undefined && display !== '') result.display = display;
  return result;
}

function isEscaped(text: string, index: number): boolean {
  let slashes = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) slashes++;
  return slashes % 2 === 1;
}

describe('the wikilink scanner', () => {
  it('finds what it found before on random text with hidden ranges, and nothing in 1 MB of [[', () => {
    const tokens = ['[[', ']]', '[', ']', 'a', '|', '#', '\n', '\\', '!', ' '];
    let matched = 0;
    let i = 0;
    for (const text of randomTexts(tokens, 40_000, 14)) {
      i += 1;
      const hidden: [number, number][] = i % 2 && text.length > 4 ? [[(i * 7) % (text.length - 2), ((i * 7) % (text.length - 2)) + 2]] : [];
      const want = oldFindWikilinks(text, hidden);
      if (want.length > 0) matched += 1;
      expect(findWikilinks(text, hidden)).toEqual(want);
    }
    expect(matched).toBeGreaterThan(1000);
    const run = '[['.repeat(MB / 2);
    expect(findWikilinks(run)).toEqual([]);
    expect(findWikilinks(`${run}x${run}]]`, [[MB, MB + 1]])).toEqual([]);
    expect(findWikilinks(`${run}[[a]]`)).toEqual([{ start: MB, end: MB + 5, embed: false, target: 'a' }]);
  });
});
