import { mulberry32, slugify } from '../ids';
import { composeNote, splitNote } from '../notes/frontmatter';
import { isStopword } from '../search/query';
import { replaceHtmlTags, replaceMarkdownLinks, replaceWikilinks, splitSentences } from './plain-text';
import type { CorpusNote, EvalCorpus } from './types';

/**
 * Filler notes: deterministic distractors that make a vault bigger without making it about
 * anything new. Their words come from the vault's own notes (a word-pair chain trained on them),
 * so a filler note shares vocabulary with real notes the way a later note on the same subjects
 * would; they sit in the same folders in the same proportions, are about as long, and carry the
 * front matter of the note they were modelled on (minus its name, aliases and supersession links).
 */

/** One filler note: where it goes and its whole text. */
export interface FillerNote {
  path: string;
  text: string;
}

/** How filler notes are drawn. */
export interface FillerOptions {
  /** The seed of every random choice (the same corpus, count and seed give the same notes). */
  seed?: number;
  /**
   * Paths already in the vault (every file, not only the corpus): no filler note takes the file
   * name of one of them, ignoring case, so no existing `[[name]]` link starts to resolve to filler.
   */
  taken?: Iterable<string>;
}

const DEFAULT_SEED = 17;
/** Words of the vault read to train the chain: enough for its vocabulary, bounded for huge vaults. */
const MAX_TRAINING_WORDS = 400_000;
/** Front-matter fields a filler note does not copy: they name the model note or point at other real notes. */
const DROPPED_FIELDS = new Set(['aliases', 'title', 'superseded_by', 'replaces', 'merged_into']);
const END = '';
/** How often a sentence leaves the chain for a word drawn from the whole vault. */
const JUMP = 0.3;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/** A word-pair chain over the vault's sentences: each word's followers, with repeats (so weighted). */
interface Chain {
  starts: string[];
  next: Map<string, string[]>;
  /** Content words (not stopwords, 3+ letters), with repeats, for titles. */
  content: string[];
  /** Every word read, with repeats: the vault's word frequencies, stopwords included. */
  words: string[];
}

/** The prose of a note: its body without code, link syntax, URLs, HTML and Markdown marks. */
function proseOf(note: CorpusNote): string {
  const body = splitNote(note.text)
    .body.replace(/^(```|~~~)[\s\S]*?^\1.*$/gm, ' ')
    .replace(/`[^`\n]*`/g, ' ');
  const links = replaceWikilinks(body, { stopAtNewline: false, bang: true }, (inner, pipe) =>
    pipe >= 0 ? inner.slice(pipe + 1) : (inner.split('#')[0].split('/').pop() ?? ''),
  );
  return replaceHtmlTags(replaceMarkdownLinks(links, { stopAtNewline: false, bang: true }).replace(/https?:\/\/\S+/g, ' '), true);
}

type Random = () => number;

const isContent = (word: string) => word.length >= 3 && !isStopword(word.toLowerCase()) && !/^\d+$/.test(word);

function trainChain(notes: readonly CorpusNote[]): Chain {
  const chain: Chain = { starts: [], next: new Map(), content: [], words: [] };
  let words = 0;
  const follow = (word: string, follower: string) => {
    const key = word.toLowerCase();
    const list = chain.next.get(key);
    if (list) list.push(follower);
    else chain.next.set(key, [follower]);
  };
  for (const note of notes) {
    for (const sentence of splitSentences(proseOf(note))) {
      const tokens = sentence.match(WORD);
      if (!tokens || tokens.length < 2) continue;
      chain.starts.push(tokens[0]);
      for (let i = 0; i < tokens.length; i += 1) {
        follow(tokens[i], tokens[i + 1] ?? END);
        if (isContent(tokens[i])) chain.content.push(tokens[i]);
        chain.words.push(tokens[i]);
      }
      words += tokens.length;
      if (words >= MAX_TRAINING_WORDS) return chain;
    }
  }
  return chain;
}

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)];
}

/**
 * A sentence of `min` to `max` words walked along the chain (a dead end starts a new clause). Every
 * few words it jumps to a word of the vault drawn by its frequency (stopwords too, so filler is no
 * denser in subject words than the notes are): a chain alone copies whole runs of
 * a note's text wherever its words are rare, and filler should share the vault's words, not its sentences.
 */
function sentenceOf(chain: Chain, random: Random, min: number, max: number): string[] {
  const words = [pick(random, chain.starts)];
  const length = min + Math.floor(random() * (max - min + 1));
  while (words.length < length) {
    if (random() < JUMP) {
      words.push(pick(random, chain.words));
      continue;
    }
    const followers = chain.next.get(words[words.length - 1].toLowerCase());
    const word = followers ? pick(random, followers) : END;
    words.push(word === END ? pick(random, chain.starts) : word);
  }
  return words;
}

function titleOf(chain: Chain, random: Random): string {
  const seen = new Set<string>();
  const sentence = sentenceOf(chain, random, 6, 12).filter((w) => isContent(w) && !seen.has(w.toLowerCase()) && seen.add(w.toLowerCase()));
  const words = sentence.slice(0, 2 + Math.floor(random() * 3));
  while (words.length < 2 && chain.content.length > 0) words.push(pick(random, chain.content));
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

function paragraphs(chain: Chain, random: Random, targetWords: number, link: string | null): string {
  const out: string[] = [];
  let current: string[] = [];
  let count = 0;
  while (count < targetWords) {
    const words = sentenceOf(chain, random, 6, 18);
    count += words.length;
    current.push(`${words[0].charAt(0).toUpperCase()}${words[0].slice(1)} ${words.slice(1).join(' ')}.`);
    if (current.length >= 3 + Math.floor(random() * 3)) {
      out.push(current.join(' '));
      current = [];
    }
  }
  if (current.length > 0) out.push(current.join(' '));
  if (link) out.push(`See also [[${link}]].`);
  return out.join('\n\n');
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '');
const nameKey = (name: string) => name.normalize('NFC').toLowerCase();

/**
 * The front matter of a filler note: the model note's fields, without the ones that name it or point
 * at other real notes; free text (a session's task, a skill's trigger: three words of letters or
 * more, no link) is rewritten along the chain at its length, so filler never repeats a real note's
 * sentences in its fields. Links, dates, times, statuses and other short values are kept.
 */
function frontmatterFrom(model: CorpusNote, title: string, slug: string, chain: Chain, random: Random): Record<string, unknown> | null {
  if (Object.keys(model.frontmatter).length === 0) return null;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value !== 'string' || value.includes('[[')) return value;
    const length = (value.match(/\p{L}{2,}/gu) ?? []).length;
    return length < 3 ? value : sentenceOf(chain, random, length, length).join(' ');
  };
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(model.frontmatter)) if (!DROPPED_FIELDS.has(key)) data[key] = rewrite(value);
  if ('name' in data) data.name = model.type === 'skill' ? slug : title;
  return data;
}

/**
 * `count` filler notes for a vault whose notes are `corpus`, deterministic: the same corpus,
 * count and seed always give the same paths and texts, and the first n notes of a larger count
 * are the n notes of a smaller one (so 3x filler is 1x filler plus more). Note i is modelled on
 * one of the vault's notes (every note once per round of `corpus.notes.length`, in a seeded
 * order): its folder, about its length in words, its front matter; its title and text are walked
 * along a word-pair chain trained on the vault's own prose, and every other filler note links to
 * an earlier one. A vault without notes (or without prose) gets none.
 */
export function fillerNotes(corpus: EvalCorpus, count: number, options: FillerOptions = {}): FillerNote[] {
  const models = [...corpus.notes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const chain = trainChain(models);
  if (models.length === 0 || chain.starts.length === 0 || count <= 0) return [];
  const seed = options.seed ?? DEFAULT_SEED;
  const order = models.map((_, i) => i);
  const shuffle = mulberry32(seed);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(shuffle() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const taken = new Set([...(options.taken ?? []), ...models.map((m) => m.path)].map((p) => nameKey(baseName(p))));
  const made: FillerNote[] = [];
  const names: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const random = mulberry32((seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
    const model = models[order[i % order.length]];
    const title = titleOf(chain, random) || `Note ${i + 1}`;
    let slug = slugify(title) || `note-${i + 1}`;
    for (let n = 2; taken.has(nameKey(slug)); n += 1) slug = `${slugify(title) || 'note'}-${n}`;
    taken.add(nameKey(slug));
    const modelWords = (splitNote(model.text).body.match(WORD) ?? []).length;
    const target = Math.min(800, Math.max(20, modelWords));
    const link = i % 2 === 1 && names.length > 0 ? pick(random, names) : null;
    const body = `# ${title}\n\n${paragraphs(chain, random, target, link)}\n`;
    const data = frontmatterFrom(model, title, slug, chain, random);
    made.push({ path: `${folderOf(model.path)}${slug}.md`, text: data ? composeNote(data, body) : body });
    names.push(slug);
  }
  return made;
}
