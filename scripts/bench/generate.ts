/**
 * The benchmark's vault: generated deterministically (a seeded generator, a fixed clock) and
 * written through `git fast-import`, so 20,000 commits take a minute instead of hours. The result
 * is cached under .bench-cache/, keyed by a hash of this file, its vocabulary (words.ts) and the note count; every run works
 * on a copy, so runs never see each other's writes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { initVault } from '../../lib/vault/index';
import { FILLER, FIRST, HUB_NAMES, LAST, SYLLABLES, WORDS, makeQuestions, seeded } from './words';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '..', '..');
const CACHE_DIR = path.join(REPO_ROOT, '.bench-cache');

/** What the generator made: the notes the measurements aim at. */
export interface VaultManifest {
  notes: number;
  commits: number;
  wikilinks: number;
  bytes: number;
  /** Notes with 200 backlinks: vault path and the name other notes link them by. */
  hubs: { path: string; name: string }[];
  /** Ordinary notes, to change on disk and to write to. */
  plain: string[];
  /** 200 questions in plain words. */
  questions: string[];
  generatedIn: number;
}

const HUB_BACKLINKS = 200;
const COMMITS = 20_000;
const START = Date.UTC(2024, 11, 1, 8, 0, 0);
const END = Date.UTC(2026, 10, 30, 18, 0, 0);
const PERSON = { name: 'Ana Lima', email: 'ana@example.org' };
const AGENTS = ['claude-code', 'cursor', 'codex', 'aider'];
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Where the cached vault for `notes` notes lives (its name carries the generator's hash). */
function cachePath(notes: number): string {
  const source = readFileSync(fileURLToPath(import.meta.url));
  const words = readFileSync(path.join(HERE, 'words.ts'));
  const hash = createHash('sha256').update(source).update(words).update(String(notes)).digest('hex').slice(0, 16);
  return path.join(CACHE_DIR, `vault-${notes}-${hash}`);
}

/** Returns the cached vault for `notes` notes, generating it first when missing. */
export async function cachedVault(notes: number, log: (line: string) => void): Promise<{ dir: string; manifest: VaultManifest }> {
  const dir = cachePath(notes);
  const manifestPath = path.join(dir, 'manifest.json');
  if (existsSync(manifestPath)) return { dir: path.join(dir, 'vault'), manifest: JSON.parse(readFileSync(manifestPath, 'utf8')) };
  log(`Generating a ${notes.toLocaleString('en')}-note vault with ${COMMITS.toLocaleString('en')} commits (cached in ${path.relative(REPO_ROOT, dir)}/)…`);
  const building = `${dir}.partial`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const started = performance.now();
  const manifest = await generate(path.join(building, 'vault'), notes);
  manifest.generatedIn = Math.round((performance.now() - started) / 1000);
  writeFileSync(path.join(building, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  log(
    `Generated in ${manifest.generatedIn} s: ${manifest.notes} notes, ${manifest.wikilinks} wikilinks, ${manifest.commits} commits, ${(manifest.bytes / 1e6).toFixed(1)} MB of notes.`,
  );
  return { dir: path.join(dir, 'vault'), manifest };
}

/** A private copy of the cached vault for one run (git objects included, nothing shared). */
export function copyVault(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
}

function git(cwd: string, args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

interface Entry {
  path: string;
  text: string;
}

async function generate(root: string, total: number): Promise<VaultManifest> {
  const rand = seeded(8);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  // Zipf-like: low indexes are picked far more often (a few notes get most of the links and edits).
  const skewed = <T>(list: readonly T[]): T => list[Math.floor(list.length * rand() ** 2.2)];
  const word = () => (rand() < 0.45 ? pick(FILLER) : pick(WORDS));
  const sentence = () => {
    const s = Array.from({ length: int(6, 18) }, word).join(' ');
    return `${s[0].toUpperCase()}${s.slice(1)}.`;
  };
  const paragraph = (bytes: number) => {
    let out = '';
    while (out.length < bytes) out += `${sentence()} `;
    return out.trim();
  };
  const slug = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
  const b32 = (n: number) => Array.from({ length: n }, () => BASE32[Math.floor(rand() * 32)]).join('');
  const scale = total / 10_000;
  const count = (share: number) => Math.max(1, Math.round(10_000 * share * scale));

  // Names first, so notes can link to notes made later.
  const people = new Set<string>();
  while (people.size < count(0.03)) people.add(`${pick(FIRST)} ${pick(LAST)}${people.size >= FIRST.length * LAST.length * 0.6 ? ` ${people.size}` : ''}`);
  const projects = new Set<string>();
  while (projects.size < count(0.015))
    projects.add(`${pick(SYLLABLES)}${pick(SYLLABLES)}${rand() < 0.3 ? pick(SYLLABLES) : ''}${projects.size > 300 ? `-${projects.size}` : ''}`);
  const peopleList = [...people].map((name) => ({ name, path: `people/${slug(name)}.md` }));
  const projectList = [...projects].map((name) => ({ name, path: `projects/${name}.md` }));
  const AREAS = ['engineering', 'product', 'operations', 'research', 'meetings', 'reference', 'customers', 'journal'];
  const plainPaths: string[] = [];
  const plainCount = total - count(0.03) - count(0.015) - count(0.12) - count(0.25) - count(0.008) - count(0.005) - HUB_NAMES.length;
  const plainNames = new Set<string>();
  while (plainPaths.length < plainCount) {
    const area = pick(AREAS);
    const name =
      area === 'journal'
        ? `${2025 + int(0, 1)}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}`
        : `${pick(WORDS)} ${pick(WORDS)}${rand() < 0.5 ? ` ${pick(WORDS)}` : ''}`;
    const folder = area === 'journal' ? `journal/${name.slice(0, 4)}` : `${area}/${pick(WORDS)}`;
    const p = `${folder}/${name}.md`;
    if (plainNames.has(p)) continue;
    plainNames.add(p);
    plainPaths.push(p);
  }
  const hubs = HUB_NAMES.map((name) => ({ name, path: `topics/${name}.md` }));
  const linkName = (p: string) => p.slice(p.lastIndexOf('/') + 1, -3);
  const linkTo = (p: string) => (rand() < 0.6 ? `[[${linkName(p)}]]` : `[[${p.slice(0, -3)}${rand() < 0.3 ? `|${pick(WORDS)}` : ''}]]`);
  const anyTarget = () => {
    const r = rand();
    if (r < 0.15) return skewed(peopleList).path;
    if (r < 0.3) return skewed(projectList).path;
    return skewed(plainPaths);
  };
  // 200 distinct notes link to each hub.
  const hubSources = new Map<string, string[]>();
  for (const hub of hubs) {
    const chosen = new Set<string>();
    while (chosen.size < HUB_BACKLINKS) chosen.add(pick(plainPaths));
    for (const p of chosen) hubSources.set(p, [...(hubSources.get(p) ?? []), hub.name]);
  }
  const bodyLinks = (k: number) => Array.from({ length: k }, () => linkTo(anyTarget()));
  const sizeOf = () => Math.min(40_000, Math.round(Math.exp(7 + rand() * 1.0 + rand() * 1.0)));

  const plainNote = (p: string): string => {
    const links = bodyLinks(int(2, 6));
    const size = sizeOf();
    const parts = [`# ${linkName(p)}`, ''];
    // Near the top, where later updates (which rewrite the second half) leave it.
    const hubLinks = hubSources.get(p);
    if (hubLinks) parts.push(`Part of ${hubLinks.map((hub) => `[[${hub}]]`).join(' and ')}.`, '');
    const tags =
      rand() < 0.5
        ? `---\ntags: [${pick(WORDS)}, ${pick(WORDS)}]\ncreated: 2025-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}\n---\n`
        : '';
    let written = 0;
    while (written < size) {
      const para = paragraph(int(200, 700));
      parts.push(links.length > 0 && rand() < 0.6 ? `${para} See ${links.pop()}.` : para, '');
      written += para.length;
      if (rand() < 0.15) parts.push(`## ${pick(WORDS)} ${pick(WORDS)}`, '');
    }
    if (links.length > 0) parts.push(`Related: ${links.join(', ')}`, '');
    return `${tags}${parts.join('\n')}`;
  };
  const personNote = (person: { name: string }) => {
    const own = Array.from({ length: int(1, 3) }, () => `  - "[[projects/${skewed(projectList).name}]]"`);
    return `---\ntype: person\nname: ${person.name}\nrole: ${pick(['engineer', 'designer', 'product manager', 'support', 'data scientist', 'engineering manager'])}\nprojects:\n${own.join('\n')}\nemail: ${slug(person.name)}@example.org\n---\n\n# ${person.name}\n\n${paragraph(int(200, 900))}\n`;
  };
  const projectNote = (project: { name: string }) =>
    `---\ntype: project\nname: ${project.name}\nstatus: ${pick(['active', 'active', 'paused', 'done'])}\nowner: "[[${skewed(peopleList).path.slice(0, -3)}]]"\nrepo: https://github.com/example-team/${project.name}\nsummary: ${sentence()}\n---\n\n# ${project.name}\n\n${paragraph(int(500, 2500))}\n\n${bodyLinks(2).join(' ')}\n`;
  const decisionNote = (title: string, date: string, project: string) =>
    `---\ntype: decision\ndate: ${date}\nproject: "[[projects/${project}]]"\nstatus: ${pick(['accepted', 'accepted', 'accepted', 'proposed', 'superseded'])}\npeople:\n  - "[[${skewed(peopleList).path.slice(0, -3)}]]"\n---\n\n# ${title}\n\n## Context\n\n${paragraph(int(300, 1200))}\n\n## Decision\n\n${paragraph(int(100, 500))}\n\n## Why\n\n${paragraph(int(200, 800))} See ${linkTo(anyTarget())}.\n`;
  const skillNote = (name: string, version: number, date: string) =>
    `---\ntype: skill\nname: ${name}\nversion: ${version}\ntrigger: ${sentence()}\nlast_updated: ${date}\nstatus: active\n---\n\n${Array.from({ length: int(3, 9) }, (_, i) => `${i + 1}. ${sentence()}`).join('\n')}\n`;

  // The person's notes from before Lucid: every person and project, part of the rest.
  const files = new Map<string, string>();
  const existing: string[] = [];
  const put = (p: string, text: string) => {
    files.set(p, text);
    existing.push(p);
  };
  for (const person of peopleList) put(person.path, personNote(person));
  for (const project of projectList) put(project.path, projectNote(project));
  for (const hub of hubs) put(hub.path, `# ${hub.name}\n\n${paragraph(3000)}\n\n${bodyLinks(4).join(' ')}\n`);
  const plainLater = plainPaths.filter(() => rand() < 0.4);
  const later = new Set(plainLater);
  for (const p of plainPaths) if (!later.has(p)) put(p, plainNote(p));
  const skillNames = Array.from({ length: count(0.008) }, (_, i) => `${pick(WORDS)}-${pick(WORDS)}-${i}`);
  const skillVersions = new Map<string, number>();
  for (const name of skillNames.slice(0, Math.ceil(skillNames.length / 2))) {
    put(`skills/${name}.md`, skillNote(name, 1, '2024-11-20'));
    skillVersions.set(name, 1);
  }
  const decisionsBefore = Math.round(count(0.12) * 0.3);
  for (let i = 0; i < decisionsBefore; i += 1) {
    const project = skewed(projectList).name;
    const title = `${pick(['Use', 'Adopt', 'Drop', 'Move to', 'Keep'])} ${pick(WORDS)} for ${pick(WORDS)}`;
    const p = `decisions/${project}-${slug(title)}-${i}.md`;
    put(p, decisionNote(title, `2024-${String(int(1, 11)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}`, project));
  }

  // The edits Lucid made afterwards: creates (sessions, decisions, the rest of the notes, inbox
  // proposals, skills) and updates, appends and molts of what exists.
  type Op = 'session' | 'decision' | 'plain' | 'inbox' | 'skill' | 'change';
  const ops: Op[] = [];
  const push = (op: Op, n: number) => {
    for (let i = 0; i < n; i += 1) ops.push(op);
  };
  push('session', count(0.25));
  push('decision', count(0.12) - decisionsBefore);
  push('plain', plainLater.length);
  push('inbox', count(0.005));
  push('skill', skillNames.length - skillVersions.size);
  push('change', COMMITS - ops.length);
  for (let i = ops.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [ops[i], ops[j]] = [ops[j], ops[i]];
  }
  if (ops[ops.length - 1] !== 'session') ops.push(...ops.splice(ops.lastIndexOf('session'), 1));

  // The repository: Lucid's real init commit, then everything else through fast-import.
  mkdirSync(root, { recursive: true });
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_DATE: `${START / 1000} +0000`, GIT_COMMITTER_DATE: `${START / 1000} +0000` };
  git(root, ['init', '-q'], env);
  git(root, ['config', 'user.name', PERSON.name], env);
  git(root, ['config', 'user.email', PERSON.email], env);
  await initVault({ dir: root, env, fallbackUser: PERSON.name, clock: () => new Date(START), ids: { base32: b32 } });
  const branch = git(root, ['symbolic-ref', 'HEAD'], env).trim();
  const initChangelog = readFileSync(path.join(root, 'changelog.md'), 'utf8');
  const initLines = initChangelog.split('\n').filter((l) => l.startsWith('- '));

  const importer = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: root, env, stdio: ['pipe', 'inherit', 'inherit'] });
  const exited = new Promise<number>((resolve) => importer.on('exit', (code) => resolve(code ?? 1)));
  let pending: string[] = [];
  let pendingBytes = 0;
  const write = async (chunk: string, force = false) => {
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes > 4_000_000 || force) {
      const ok = importer.stdin.write(pending.join(''));
      pending = [];
      pendingBytes = 0;
      if (!ok) await new Promise((resolve) => importer.stdin.once('drain', resolve));
    }
  };
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let mark = 0;
  let first = true;
  const commit = async (
    when: number,
    who: { name: string; email: string },
    message: string,
    changes: Entry[],
    changelogMark?: number,
    archives: Entry[] = [],
  ) => {
    mark += 1;
    const stamp = `${Math.floor(when / 1000)} +0000`;
    let out = `commit ${branch}\nmark :${mark}\nauthor ${who.name} <${who.email}> ${stamp}\ncommitter ${who.name} <${who.email}> ${stamp}\n${data(message)}`;
    if (first) out += `from ${branch}^0\n`;
    first = false;
    if (changelogMark !== undefined) out += `M 100644 :${changelogMark} changelog.md\n`;
    for (const change of [...archives, ...changes]) out += `M 100644 inline ${change.path}\n${data(change.text)}`;
    await write(out);
  };
  let wikilinks = 0;
  let bytes = 0;
  const countNote = (text: string) => {
    wikilinks += (text.match(/\[\[/g) ?? []).length;
    bytes += Buffer.byteLength(text);
  };

  // One plain commit for the person's notes.
  const snapshot: Entry[] = existing.map((p) => ({ path: p, text: files.get(p)! }));
  await commit(START + 60_000, PERSON, 'Notes from before Lucid\n', snapshot);

  let monthLines: string[] = [...initLines];
  let month = new Date(START).toISOString().slice(0, 7);
  let session: { id: string; agent: string; started: number; touched: string[]; edits: number } | null = null;
  const step = (END - START - 120_000) / ops.length;
  let humanEdits = 0;
  for (let i = 0; i < ops.length; i += 1) {
    const op = ops[i];
    const when = START + 120_000 + Math.floor(i * step + rand() * step * 0.5);
    const iso = new Date(when).toISOString();
    const date = iso.slice(0, 10);
    const human = op === 'change' && rand() < 0.08;
    if (!human && !session) {
      const agent = pick(AGENTS);
      session = { id: `${iso.slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${agent}-${b32(4)}`, agent, started: when, touched: [], edits: 0 };
    }
    const actor = human ? `human:${PERSON.name}` : `agent:${session!.agent}`;
    let target: string;
    let text: string;
    let gitOp: string;
    let reason: string;
    let trailers = '';
    switch (op) {
      case 'session': {
        const s = session!;
        target = `sessions/${s.id}.md`;
        gitOp = 'create';
        reason = 'session ended';
        const project = skewed(projectList).name;
        const task = `${pick(['Fix', 'Investigate', 'Document', 'Refactor', 'Review', 'Plan'])} the ${pick(WORDS)} ${pick(WORDS)}`;
        text = `---\ntype: session\nagent: ${s.agent}\ntask: ${task}\nstarted: ${new Date(s.started).toISOString().slice(0, 19)}+00:00\nended: ${iso.slice(0, 19)}+00:00\noutcome: ${pick(['done', 'done', 'partial', 'abandoned'])}\nproject: "[[projects/${project}]]"\nsearched:\n  - ${pick(WORDS)} ${pick(WORDS)}\n${s.touched.length ? `touched:\n${[...new Set(s.touched)].map((t) => `  - ${t}`).join('\n')}\n` : ''}---\n\n# ${task}\n\n${paragraph(int(200, 900))}\n\n${bodyLinks(int(0, 2)).join(' ')}\n`;
        break;
      }
      case 'decision': {
        const project = skewed(projectList).name;
        const title = `${pick(['Use', 'Adopt', 'Drop', 'Move to', 'Keep'])} ${pick(WORDS)} for ${pick(WORDS)}`;
        target = `decisions/${project}-${slug(title)}-${i}.md`;
        gitOp = 'create';
        reason = `recorded: ${title.toLowerCase()}`;
        text = decisionNote(title, date, project);
        break;
      }
      case 'plain': {
        target = plainLater.pop()!;
        gitOp = 'create';
        reason = `notes on ${pick(WORDS)}`;
        text = plainNote(target);
        break;
      }
      case 'inbox': {
        const about = skewed(plainPaths);
        target = `inbox/${iso.slice(0, 19).replace(/[-:]/g, '').replace('T', '-').slice(0, 8)}-${iso.slice(11, 19).replace(/:/g, '')}-${slug(linkName(about)).slice(0, 30)}.md`;
        gitOp = 'create';
        reason = `unsure about ${pick(WORDS)}`;
        text = `---\nproposed_by: agent:${session!.agent}\naction: append\ntarget: ${about}\nreason: ${sentence()}\ncreated: ${iso.slice(0, 19)}+00:00\nsession: "[[sessions/${session!.id}]]"\nconfidence: 0.${int(2, 6)}\n---\n\n${sentence()}\n\n\`\`\`\`markdown\n${paragraph(int(100, 400))}\n\`\`\`\`\n`;
        break;
      }
      case 'skill': {
        const name = skillNames.find((n) => !skillVersions.has(n))!;
        skillVersions.set(name, 1);
        target = `skills/${name}.md`;
        gitOp = 'create';
        reason = 'a procedure worth keeping';
        text = skillNote(name, 1, date);
        break;
      }
      default: {
        const r = rand();
        if (!human && r < 0.05 && skillVersions.size > 0) {
          const name = pick([...skillVersions.keys()]);
          const from = skillVersions.get(name)!;
          skillVersions.set(name, from + 1);
          target = `skills/${name}.md`;
          gitOp = 'molt';
          reason = 'learned a better order';
          text = skillNote(name, from + 1, date);
          trailers = `Lucid-Molt: ${name} ${from}->${from + 1}\n`;
        } else {
          target = rand() < 0.7 ? skewed(existing) : existing[existing.length - 1 - Math.floor(rand() * Math.min(300, existing.length))];
          if (/^(skills|sessions|inbox)\//.test(target)) target = skewed(plainPaths.filter((p) => files.has(p)).slice(0, 2000));
          const before = files.get(target)!;
          if (rand() < 0.6 || before.length > 60_000) {
            gitOp = 'append';
            text = `${before.trimEnd()}\n\n${paragraph(int(80, 400))}\n`;
            reason = `added what we learned about ${pick(WORDS)}`;
          } else {
            gitOp = 'update';
            const cut = before.lastIndexOf('\n\n', Math.floor(before.length * (0.5 + rand() * 0.4)));
            text = `${before.slice(0, cut > 0 ? cut : before.length)}\n\n${paragraph(int(150, 600))}\n`;
            reason = `corrected the ${pick(WORDS)} section`;
          }
        }
      }
    }
    if (!files.has(target)) existing.push(target);
    files.set(target, text);
    const editId = `e${b32(12)}`;
    const sessionId = human ? null : session!.id;
    trailers = `Lucid-Actor: ${actor}\nLucid-Op: ${gitOp}\nLucid-Edit: ${editId}\n${sessionId ? `Lucid-Session: ${sessionId}\n` : ''}${trailers}`;
    const message = `${gitOp} ${target}\n\n${reason}\n\n${trailers}`;
    const minute = `${date} ${iso.slice(11, 16)}`;
    const line = `- ${minute} · ${actor} · ${gitOp} [[${target.slice(0, -3)}]] · ${reason}${sessionId ? ` · [[sessions/${sessionId}|session]]` : ''} ^${editId}`;
    const archives: Entry[] = [];
    const thisMonth = date.slice(0, 7);
    if (thisMonth !== month) {
      archives.push({ path: `changelog/${month}.md`, text: `# Changelog ${month}\n\n${monthLines.join('\n')}\n` });
      monthLines = [];
      month = thisMonth;
    }
    monthLines.unshift(line);
    // The changelog goes in as its own blob right after the previous one, so fast-import stores it as a delta.
    mark += 1;
    const changelogMark = mark;
    await write(`blob\nmark :${changelogMark}\n${data(`# Changelog\n\n${monthLines.join('\n')}\n`)}`);
    if (human) humanEdits += 1;
    else {
      session!.touched.push(target);
      session!.edits += 1;
    }
    await commit(
      when,
      human ? PERSON : { name: `Lucid (${session?.agent})`, email: 'lucid@localhost' },
      message,
      [{ path: target, text }],
      changelogMark,
      archives,
    );
    if (op === 'session') session = null;
  }
  await write('done\n', true);
  importer.stdin.end();
  if ((await exited) !== 0) throw new Error('git fast-import failed');
  git(root, ['reset', '--hard', '-q'], env);
  for (const text of files.values()) countNote(text);
  const commits = Number(git(root, ['rev-list', '--count', 'HEAD'], env).trim());
  const questions = makeQuestions(
    seeded(21),
    projectList.map((p) => p.name),
    peopleList.map((p) => p.name),
  );
  void humanEdits;
  return {
    notes: files.size,
    commits,
    wikilinks,
    bytes,
    hubs,
    plain: plainPaths.slice(0, 2000).filter((p) => files.has(p)),
    questions,
    generatedIn: 0,
  };
}
