import { foldText } from '../leak';
import type { Thesaurus } from '../thesaurus';
import { trimEndOf, WHITESPACE } from '../../text';
import { dropClosingHashes, replaceMarkdownLinks, replaceWikilinks } from '../plain-text';
import { isContentWord, wordsIn } from './words';

/**
 * Everyday words of notes and documentation and a plainer way to say each, so a generated
 * question does not simply repeat a note's wording. General English, no vault's vocabulary.
 */
const PLAIN_WORDS: Record<string, string> = {
  recur: 'repeat',
  recurs: 'repeats',
  recurring: 'repeating',
  repeat: 'recur',
  delete: 'remove',
  deleting: 'removing',
  remove: 'delete',
  create: 'make',
  creating: 'making',
  modify: 'change',
  display: 'show',
  displays: 'shows',
  show: 'display',
  shows: 'displays',
  hide: 'conceal',
  locate: 'find',
  configure: 'set up',
  configuration: 'setup',
  settings: 'options',
  setting: 'option',
  options: 'settings',
  option: 'setting',
  priority: 'importance',
  priorities: 'importance levels',
  schedule: 'plan',
  scheduled: 'planned',
  error: 'problem',
  errors: 'problems',
  issue: 'problem',
  issues: 'problems',
  bug: 'defect',
  bugs: 'defects',
  fix: 'repair',
  begin: 'start',
  start: 'begin',
  finish: 'complete',
  complete: 'finish',
  completed: 'finished',
  done: 'finished',
  explain: 'describe',
  example: 'sample',
  examples: 'samples',
  overview: 'summary',
  summary: 'overview',
  limit: 'cap',
  limits: 'caps',
  folder: 'directory',
  folders: 'directories',
  query: 'search',
  queries: 'searches',
  customize: 'adapt',
  customise: 'adapt',
  appearance: 'look',
  format: 'layout',
  large: 'big',
  small: 'little',
  fast: 'quick',
  slow: 'sluggish',
  quickly: 'fast',
  expires: 'runs out',
  expire: 'run out',
  fails: 'breaks',
  fail: 'break',
  failing: 'breaking',
  broken: 'not working',
  change: 'alter',
  changes: 'alterations',
  migrate: 'move',
  migrating: 'moving',
  migration: 'move',
  upgrade: 'update',
  upgrading: 'updating',
  release: 'version',
  deploy: 'ship',
  deploying: 'shipping',
  deployment: 'rollout',
  customer: 'client',
  customers: 'clients',
  meeting: 'call',
  meetings: 'calls',
  document: 'write up',
  documents: 'papers',
};

/** Words ending in -ing that are not verb forms. */
const NOT_GERUNDS = new Set(
  'anything bring ceiling during evening everything fling heading king morning nothing ring sing sling something spring sting string swing thing things wedding wing'.split(
    ' ',
  ),
);

/** Verbs a heading in the imperative often starts with ("Install the plugin"). */
const IMPERATIVES = new Set(
  `add apply build change check choose configure connect copy create customize customise define delete disable edit
  embed enable export filter find fix format group hide import insert install learn link list make migrate move open
  read remove rename run search see select set show sort start stop sync toggle try update upgrade use view write`.split(/\s+/),
);

const DETERMINERS = new Set(
  'a an the your my our their this that these those it them each every all some any up out in on with from to for multiple'.split(' '),
);

/** `installing` → `install`, `making` → `make`, `running` → `run`: the base form of a verb's -ing form. */
export function baseVerb(word: string): string {
  const lower = word.toLowerCase();
  const irregular: Record<string, string> = {
    lying: 'lie',
    dying: 'die',
    tying: 'tie',
    being: 'be',
    seeing: 'see',
    creating: 'create',
    recreating: 'recreate',
    ignoring: 'ignore',
    exploring: 'explore',
    restoring: 'restore',
    storing: 'store',
    scoring: 'score',
  };
  if (irregular[lower]) return irregular[lower];
  if (!lower.endsWith('ing') || lower.length < 5) return lower;
  const s = lower.slice(0, -3);
  // A doubled final consonant after one vowel (running, getting), and British -lling (travelling).
  if (/([bdgmnprtv])\1$/.test(s) && /[^aeiou][aeiou][bdgmnprtv]{2}$/.test(s)) return s.slice(0, -1);
  if (s.length >= 6 && /(?:el|trol|pel)l$/.test(s)) return s.slice(0, -1);
  if (/^us$/.test(s)) return 'use';
  // Two vowels and an s: a silent e fell off (increasing, releasing, pleasing).
  if (/[aeiou]{2}s$/.test(s)) return `${s}e`;
  // One syllable (after re-, un-, pre-) ending in one consonant that was not doubled: a silent e fell off (making, rewriting).
  if (/^[^aeiouy]+[aeiouy][bcdgkmnprstvz]$/.test(s) || /^(?:re|un|pre)[^aeiouy]{1,2}[aeiouy][bcdgkmnpstvz]$/.test(s)) return `${s}e`;
  if (/(?:[^aeiou]at|[^aeiou]ut|[^aeiou]in|[^aeiou]ur|[^aeiou]ar|[aeiou]g|[ae]ng|[aeiou]c|[^aeiou]l|ul|rs|iz|ys|yz|v|u)$/.test(s) && !/ll$/.test(s)) {
    return `${s}e`;
  }
  return s;
}

/** True when a word is a verb's -ing form by its shape. */
function isGerund(word: string): boolean {
  const lower = word.toLowerCase();
  return lower.length >= 5 && lower.endsWith('ing') && !NOT_GERUNDS.has(lower);
}

/** A word as it reads inside a sentence: lowercase unless it is an acronym or a name with inner capitals. */
function inSentence(word: string): string {
  if (/^\p{Lu}[\p{Ll}'’-]*$/u.test(word)) return word.toLowerCase();
  return word;
}

/** A heading's words as a phrase inside a sentence (Title Case folded, acronyms and names kept). */
function asPhrase(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  const titleCase = words.filter((w) => w.length >= 4).every((w) => /^\p{Lu}/u.test(w));
  return words.map((w, i) => (i === 0 || titleCase ? inSentence(w) : w)).join(' ');
}

/** Replaces everyday words with plainer ones ({@link PLAIN_WORDS}), each word once, keeping the rest. */
export function plainer(text: string): string {
  return text.replace(/[\p{L}]+/gu, (word) => {
    const plain = PLAIN_WORDS[word.toLowerCase()];
    return plain && word === word.toLowerCase() ? plain : word;
  });
}

/** Wikilinks and markdown links of a heading as the text they show (`[[a|b]]` → b, `[[a]]` → a, `[t](u)` → t). */
function linksAsShown(text: string): string {
  const wikilinks = replaceWikilinks(text, { stopAtNewline: false, bang: false }, (inner, pipe) => inner.slice(pipe + 1));
  return replaceMarkdownLinks(wikilinks, { stopAtNewline: false, bang: false });
}

/** A heading without numbering, emoji, trailing punctuation and markdown marks. */
export function cleanHeading(text: string): string {
  return trimEndOf(
    linksAsShown(dropClosingHashes(text))
      .replace(/(?<=[\p{L}\p{N}])_(?=[\p{L}\p{N}])/gu, ' ')
      .replace(/[`*_~=]/g, '')
      .replace(/\p{Extended_Pictographic}|\uFE0F|\u200D/gu, '')
      .replace(/^[^\p{L}\p{N}]+/u, '')
      .replace(/^(?:step\s+)?\d+(?:\.\d+)*[.):]?\s+/i, ''),
    `${WHITESPACE}:.!,;—–-`,
  )
    .replace(/\s+/g, ' ')
    .trim();
}

/** A token that is code rather than a word: brackets, pipes, slashes, operators, or a path of two dots (`a.b.c`). */
const CODE_TOKEN = /[(){}[\]<>\\|$=;/@#^]|\p{L}\.\p{L}[^\s.]*\./u;
/** Below this share of letters in words (out of every character but spaces), a heading is code or numbers. */
const MIN_PROSE_SHARE = 0.6;

/**
 * The share of a heading's characters (spaces aside) that are letters of plain words: inline
 * code spans (but for one plain name) and tokens that look like code (`f(x)`, `a|b`, `task.file.path`, `[\s>]*`) count
 * as characters but not as letters; digits and punctuation neither. "Toggle Task Done on
 * `[\s\t>]*- wibble` produces `"$1- [ ] wibble"`" or "Tasks 2.0.0 (22 March 2023)" score low.
 */
export function proseShare(heading: string): number {
  const text = linksAsShown(heading);
  const all = text.replace(/[\s`]+/g, '').length;
  if (all === 0) return 0;
  const prose = text
    // A code span of one plain name (`id`, `project`) reads as a word; anything longer is code.
    .replace(/`([^`]*)`?/g, (_, code: string) => (/^[\p{L}][\p{L}\p{N}_-]*$/u.test(code) ? code : ' '))
    .split(/\s+/)
    .filter((token) => !CODE_TOKEN.test(token))
    .join(' ');
  return (prose.match(/\p{L}/gu)?.length ?? 0) / all;
}

/** True when a heading is mostly code, numbers or punctuation: nobody asks with those words. */
export function isCodeHeading(heading: string): boolean {
  return proseShare(heading) < MIN_PROSE_SHARE;
}

/**
 * The ways a heading can be asked about, best first: its question form ("Installing the plugin"
 * → "How do I install the plugin?"; "Recurring tasks" → "What about tasks that repeat?"), then
 * other wordings. Empty when the heading says too little to ask about.
 */
export function headingQuestions(heading: string): string[] {
  // Template placeholders (Templater, Handlebars) are not words anyone asks with.
  if (/<%|%>|\{\{|\}\}/.test(heading)) return [];
  const text = cleanHeading(heading).replace(/^about\s+/i, '');
  const words = text.split(' ').filter(Boolean);
  if (words.length === 0 || wordsIn(text).filter(isContentWord).length === 0) return [];
  const out: string[] = [];
  const first = words[0].toLowerCase();
  const rest = asPhrase(words.slice(1).join(' '));
  if (first === 'how' && words[1]?.toLowerCase() === 'to' && words.length > 2) {
    out.push(`How do I ${asPhrase(words.slice(2).join(' '))}?`);
  } else if (/\?$/.test(heading.trim()) || (words.length >= 3 && /^(?:how|what|why|when|where|which|who|can|does|do|is|are|should)$/.test(first))) {
    out.push(`${trimEndOf(text, '?')}?`);
  } else if (isGerund(words[0]) && words[1]?.toLowerCase() !== 'of') {
    const verb = baseVerb(words[0]);
    // "Setting and changing X" → "set and change X"
    const rest = asPhrase(
      words
        .slice(1)
        .map((w, i, all) => (i > 0 && /^(?:and|or)$/i.test(all[i - 1]) && isGerund(w) ? baseVerb(w) : w))
        .join(' '),
    );
    const object = words.slice(1);
    // "Recurring tasks": an -ing word before a plural noun describes it; before a singular one it is
    // usually a compound ("Onboarding checklist"), asked about as it is.
    const adjective = object.length === 1 && /[^s]s$/i.test(object[0]) && !DETERMINERS.has(object[0].toLowerCase());
    const compound = object.length === 1 && !adjective && !DETERMINERS.has(object[0].toLowerCase()) && !/(?:ed|ly)$/i.test(object[0]);
    if (adjective) {
      const noun = inSentence(object[0]);
      const agrees = /[^s]s$/.test(noun) ? verb : `${verb}s`;
      out.push(plainer(`What about ${noun} that ${agrees}?`), `What about ${noun} that ${agrees}?`);
    }
    // "Pending" alone is no task anyone asks how to do: "How do I pend?".
    if (!compound && rest) out.push(`How do I ${verb} ${rest}?`, plainer(`How do I ${verb} ${rest}?`));
  } else if (IMPERATIVES.has(first) && words.length > 1) {
    out.push(`How do I ${first} ${rest}?`, plainer(`How do I ${first} ${rest}?`));
  }
  const phrase = asPhrase(text);
  out.push(plainer(`What about ${phrase}?`), `What about ${phrase}?`, plainer(`What do my notes say about ${phrase}?`));
  return unique(out);
}

/** A skill's trigger as the clause after "when": lead words ("Use when", "If") and the final stop out. */
export function triggerClause(trigger: string): string {
  const text = trimEndOf(
    trigger
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^(?:use (?:this )?(?:skill )?)?(?:when(?:ever)?|if|once)\s+/i, ''),
    `.!;:${WHITESPACE}`,
  );
  const words = text.split(' ');
  if (words[0]) words[0] = inSentence(words[0]);
  return words.join(' ');
}

/** Keeps the first of each wording (compared folded). */
export function unique(questions: string[]): string[] {
  const seen = new Set<string>();
  return questions.filter((q) => {
    const key = foldText(q);
    if (key === '' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Rewords a question whose text gives away one of `avoid` (a title, an alias, an answer): one word
 * of each string it still contains is replaced with a synonym from the thesaurus that is not
 * itself a word of those strings, until `leaks` finds nothing. Null when no synonym helps.
 */
export function rephraseWith(thesaurus: Thesaurus, question: string, avoid: string[], leaks: (question: string) => string | null): string | null {
  const avoidWords = new Set(avoid.flatMap((a) => foldText(a).split(' ')).filter(Boolean));
  let current = question;
  for (let round = 0; round < 4; round += 1) {
    if (!leaks(current)) return current === question ? null : current;
    const folded = ` ${foldText(current)} `;
    let changed = false;
    for (const string of avoid) {
      const key = foldText(string);
      if (key === '' || !folded.includes(` ${key} `)) continue;
      const candidates = key
        .split(' ')
        .filter((w) => w.length >= 3)
        .sort((a, b) => b.length - a.length);
      for (const word of candidates) {
        const synonym = synonymFor(thesaurus, word, avoidWords);
        if (!synonym) continue;
        const replaced = replaceWord(current, word, synonym);
        if (replaced !== current) {
          current = replaced;
          changed = true;
          break;
        }
      }
    }
    if (!changed) return null;
  }
  return leaks(current) ? null : current;
}

function synonymFor(thesaurus: Thesaurus, word: string, avoidWords: Set<string>): string | null {
  let synonyms: string[];
  try {
    synonyms = thesaurus.synonyms(word.toLowerCase());
  } catch {
    return null;
  }
  const own = foldText(word);
  for (const raw of synonyms) {
    const synonym = raw.replace(/_/g, ' ').trim();
    const folded = foldText(synonym);
    if (folded === '' || folded === own || folded.split(' ').some((w) => avoidWords.has(w))) continue;
    return synonym;
  }
  return null;
}

/** Replaces the first whole-word occurrence of `word` (any case) in `text`. */
function replaceWord(text: string, word: string, by: string): string {
  // A scan, not a RegExp built from the word: nothing the vault holds can make it slow.
  const wanted = word.toLowerCase();
  const isWordChar = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
  for (let at = 0; at + wanted.length <= text.length; at += 1) {
    if (text.slice(at, at + wanted.length).toLowerCase() !== wanted) continue;
    if (isWordChar(text[at - 1]) || isWordChar(text[at + wanted.length])) continue;
    return text.slice(0, at) + by + text.slice(at + wanted.length);
  }
  return text;
}
