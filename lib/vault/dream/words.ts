/**
 * A skill's text as words and steps for comparison: lowercased, stop words dropped, words stemmed,
 * common synonyms of runbooks joined, and the body cut into steps.
 */

/** Words that carry no procedure. */
const STOP = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto over under as is are was were be been being it its this that these those ' +
    'there here you your we our us i me my he she they them their his her so such than too very can could should would will shall may might must do does did ' +
    'done have has had not no nor only own same all any both each few more most other some just also again once up down out off about above below before after ' +
    'while until when where which who whom what why how first next finally last now make sure step steps use using whether every always never one two carefully'
  ).split(' '),
);

/**
 * Words of runbooks that mean the same thing, as stems, mapped to the first of their group: a
 * small general list of verbs and nouns, not any vault's words.
 */
const SYNONYM_GROUPS: string[][] = [
  ['run', 'execut', 'invok'],
  ['remov', 'delet', 'eras', 'purg', 'rm'],
  ['check', 'verifi', 'confirm', 'ensur', 'validat', 'inspect', 'examin', 'look'],
  ['creat', 'generat'],
  ['start', 'launch', 'begin', 'boot'],
  ['stop', 'halt', 'termin', 'kill', 'shutdown'],
  ['fetch', 'download', 'retriev', 'pull'],
  ['updat', 'refresh', 'modifi', 'edit', 'chang', 'alter', 'adjust'],
  ['copi', 'duplic'],
  ['find', 'search', 'locat', 'lookup', 'grep'],
  ['save', 'store', 'persist', 'keep', 'record', 'write'],
  ['list', 'enumer', 'show', 'display', 'print'],
  ['restart', 'reboot', 'bounc', 'reload'],
  ['configur', 'setup', 'config', 'set'],
  ['fix', 'repair', 'resolv', 'correct', 'patch'],
  ['notifi', 'inform', 'alert', 'tell', 'messag'],
  ['error', 'failur', 'fault', 'fail'],
  ['wait', 'paus'],
  ['open', 'view'],
  ['compar', 'diff'],
  ['review', 'read', 'scan'],
  ['test', 'tri'],
  ['directori', 'folder', 'dir'],
  ['log', 'logfil'],
  ['backup', 'snapshot', 'dump'],
  ['restor', 'recov'],
  ['upgrad', 'bump'],
  ['instal', 'add'],
  ['credenti', 'secret', 'password', 'token', 'kei'],
  ['servic', 'daemon'],
  ['server', 'host', 'machin', 'node'],
  ['deploi', 'ship', 'releas', 'rollout', 'publish'],
  ['rollback', 'revert', 'undo'],
  ['big', 'larg', 'huge'],
  ['fast', 'quick', 'rapid'],
  ['issu', 'problem', 'bug'],
  ['command', 'cmd'],
  ['repositori', 'repo'],
  ['document', 'doc'],
];
const SYNONYM = new Map<string, string>();
for (const group of SYNONYM_GROUPS) for (const word of group) if (!SYNONYM.has(word)) SYNONYM.set(word, group[0]);

const SUFFIXES = ['ational', 'ation', 'ement', 'ment', 'ness', 'ingly', 'edly', 'ing', 'ed', 'ly', 'er', 'al', 'ive', 'able', 'ible'];

/** A light suffix stemmer (Porter's first step and a few derivational endings): enough to join a word's forms. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = `${w.slice(0, -3)}i`;
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  for (const suffix of SUFFIXES) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  if (/([^aeiouslz])\1$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('y') && w.length > 3) w = `${w.slice(0, -1)}i`;
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** The words of a text for comparison: split on anything but letters and digits, stop words and numbers out, stemmed, synonyms joined. */
export function normalizeWords(text: string): string[] {
  const out: string[] = [];
  const spaced = text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  for (const raw of spaced.split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || STOP.has(raw) || /^\d+$/.test(raw)) continue;
    const stemmed = stem(raw);
    out.push(SYNONYM.get(stemmed) ?? SYNONYM.get(raw) ?? stemmed);
  }
  return out;
}

/**
 * The steps of a skill's body: its list items (a code block or an indented line belongs to the
 * item above it), else its sentences; headings and blank lines left out.
 */
export function extractSteps(body: string): string[] {
  const items: string[] = [];
  const sentences: string[] = [];
  let fence: string | null = null;
  let current: string | null = null;
  const flush = () => {
    if (current?.trim()) items.push(current.trim());
    current = null;
  };
  for (const line of body.split(/\r?\n/)) {
    const fenceMark = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fenceMark) {
      if (fence === null) fence = fenceMark[1][0];
      else if (fenceMark[1][0] === fence) fence = null;
      continue;
    }
    if (fence !== null) {
      if (current !== null) current += ` ${line}`;
      continue;
    }
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(\S.*|)$/.exec(line);
    if (item) {
      flush();
      current = item[1];
    } else if (/^\s*#/.test(line) || line.trim() === '') {
      flush();
    } else if (current !== null && /^\s+\S/.test(line)) {
      current += ` ${line.trim()}`;
    } else {
      flush();
      sentences.push(...line.split(/(?<=[.!?;])\s+/).filter((s) => s.trim()));
    }
  }
  flush();
  return items.length >= 2 ? items : [...items, ...sentences];
}
