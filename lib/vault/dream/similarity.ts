import { normalizeWords, extractSteps } from './words';

/**
 * How alike two skills are, as procedures: each skill's steps (list items, else sentences) are
 * normalized (see words.ts), weighed by TF-IDF over the skill set, and compared three ways: the
 * cosine of the whole texts; how many steps of each are covered by the other's steps (by one
 * step, or by two adjacent ones when a paraphrase merged them); and whether the words each skill
 * repeats (what it is about: its system, its object) appear in the other at all. Candidate pairs
 * come from an inverted index of the terms that are not in most skills (all-pairs similarity
 * search), so the pass does not compare every pair.
 */

/** A skill as the comparer sees it. */
export interface SkillText {
  /** vault path */
  path: string;
  name: string;
  trigger: string;
  body: string;
}

/** A skill prepared for comparison. */
interface Prepared {
  path: string;
  name: Set<string>;
  trigger: string[];
  steps: { raw: string; words: Set<string>; verb: string }[];
  /** every word of name, trigger and steps */
  words: Set<string>;
  /** words written twice or more in trigger and steps, with their weight (count × IDF): what the skill is about */
  repeated: Map<string, number>;
  repeatedMass: number;
  /** term → TF-IDF weight, L2-normalized */
  vector: Map<string, number>;
}

/** One pair of similar skills. */
export interface SimilarPair {
  a: string;
  b: string;
  score: number;
  evidence: string[];
}

/** What two skills share, measured. */
export interface PairFeatures {
  /** for each step of a, the step of b covering it, or -1 */
  aCover: number[];
  bCover: number[];
  /** mean share of each skill's steps covered by the other's */
  stepShare: number;
  textCosine: number;
  triggerSim: number;
  nameSim: number;
  /** 1 minus the mean share (by weight) of each skill's repeated words the other never writes */
  keyShare: number;
}

/** Options of {@link findSimilarPairs}. */
export interface SimilarityOptions {
  /** a pair at or above this score is a duplicate (default DUPLICATE_THRESHOLD) */
  threshold?: number;
  /** progress, in skills whose candidates were compared */
  onProgress?: (done: number, total: number) => void;
}

/** The score from which a pair is reported (measured by scripts/dream-measure.ts on generated sets). */
const DUPLICATE_THRESHOLD = 0.6;
/** Weights of the score (measured the same way). */
const WEIGHTS = { step: 0.6, cos: 0.3, trigger: 0.1, name: 0.1, key: 1 };
/** A step is covered when this share of its words is in one step (or two adjacent ones) of the other skill. */
const STEP_COVERED = 0.6;
/** Terms in more than this share of the skills (and at least MIN_COMMON) are not used to find candidates. */
const COMMON_SHARE = 0.2;
const MIN_COMMON = 8;
/** The factor of a step match whose first words (the action) differ. */
const VERB_MISMATCH = 0.8;
/** Candidates below this cosine are not compared step by step. */
const CANDIDATE_COSINE = 0.25;

function terms(words: readonly string[]): string[] {
  const out = [...words];
  // unordered neighbour pairs keep "back up the database" apart from "restore the database"
  for (let i = 0; i + 1 < words.length; i += 1) {
    const [x, y] = words[i] < words[i + 1] ? [words[i], words[i + 1]] : [words[i + 1], words[i]];
    if (x !== y) out.push(`${x}+${y}`);
  }
  return out;
}

function prepare(skills: readonly SkillText[]): Prepared[] {
  const raw = skills.map((s) => {
    const steps = extractSteps(s.body).map((text) => ({ raw: text, list: normalizeWords(text) }));
    const trigger = normalizeWords(s.trigger);
    const name = normalizeWords(s.name.replace(/[-_]/g, ' '));
    const bag = new Map<string, number>();
    for (const step of steps) for (const t of terms(step.list)) bag.set(t, (bag.get(t) ?? 0) + 1);
    for (const t of trigger) bag.set(t, (bag.get(t) ?? 0) + 1);
    return { s, steps, trigger, name, bag };
  });
  const df = new Map<string, number>();
  for (const r of raw) for (const t of r.bag.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = skills.length;
  const idf = (t: string) => Math.log(1 + n / (df.get(t) ?? 1));
  return raw.map((r) => {
    const vector = new Map<string, number>();
    let norm = 0;
    for (const [t, tf] of r.bag) {
      const w = (1 + Math.log(tf)) * idf(t);
      vector.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [t, w] of vector) vector.set(t, w / norm);
    const all = r.steps.flatMap((st) => st.list);
    const counts = new Map<string, number>();
    for (const w of [...r.trigger, ...all]) counts.set(w, (counts.get(w) ?? 0) + 1);
    const repeated = new Map<string, number>();
    let repeatedMass = 0;
    for (const [w, c] of counts) {
      if (c < 2) continue;
      repeated.set(w, c * idf(w));
      repeatedMass += c * idf(w);
    }
    return {
      path: r.s.path,
      name: new Set(r.name),
      trigger: r.trigger,
      steps: r.steps.filter((st) => st.list.length > 0).map((st) => ({ raw: st.raw, words: new Set(st.list), verb: st.list[0] })),
      words: new Set([...r.name, ...r.trigger, ...all]),
      repeated,
      repeatedMass,
      vector,
    };
  });
}

function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) dot += w * (large.get(t) ?? 0);
  return dot;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/** The share (by weight) of `a`'s repeated words that `b` never writes. */
function missing(a: Prepared, b: Prepared): number {
  if (a.repeatedMass === 0) return 0;
  let gone = 0;
  for (const [w, weight] of a.repeated) if (!b.words.has(w)) gone += weight;
  return gone / a.repeatedMass;
}

function containment(step: ReadonlySet<string>, other: ReadonlySet<string>, more?: ReadonlySet<string>): number {
  let inside = 0;
  for (const w of step) if (other.has(w) || more?.has(w)) inside += 1;
  return inside / step.size;
}

/** For each step of `from`, the step of `to` covering it (alone or with the next one), or -1. */
function cover(from: Prepared, to: Prepared): number[] {
  return from.steps.map((step) => {
    let best = -1;
    let bestValue = 0;
    to.steps.forEach((other, j) => {
      const single = containment(step.words, other.words);
      const merged = j + 1 < to.steps.length ? containment(step.words, other.words, to.steps[j + 1].words) : 0;
      // a step is its action first: another verb counts against the match
      const value = Math.max(single, merged * 0.95) * (other.verb === step.verb ? 1 : VERB_MISMATCH);
      if (value > bestValue) {
        bestValue = value;
        best = j;
      }
    });
    // a step of one or two words is covered only when all of them are
    const needed = step.words.size <= 2 ? 1 : STEP_COVERED;
    return bestValue >= needed ? best : -1;
  });
}

/** The score a pair could reach at most, from its cheap features (steps all matched, trigger and name equal). */
function bound(a: Prepared, b: Prepared, textCosine: number): number {
  const w = WEIGHTS;
  const keyShare = 1 - (missing(a, b) + missing(b, a)) / 2;
  return ((w.step + w.cos * textCosine + w.trigger + w.name) / (w.step + w.cos + w.trigger + w.name)) * keyShare ** w.key;
}

function features(a: Prepared, b: Prepared, textCosine: number): PairFeatures {
  const aCover = cover(a, b);
  const bCover = cover(b, a);
  const aShare = a.steps.length ? aCover.filter((j) => j >= 0).length / a.steps.length : 0;
  const bShare = b.steps.length ? bCover.filter((j) => j >= 0).length / b.steps.length : 0;
  return {
    aCover,
    bCover,
    stepShare: (aShare + bShare) / 2,
    textCosine,
    triggerSim: jaccard(new Set(a.trigger), new Set(b.trigger)),
    nameSim: jaccard(a.name, b.name),
    keyShare: 1 - (missing(a, b) + missing(b, a)) / 2,
  };
}

function scoreOf(f: PairFeatures): number {
  const w = WEIGHTS;
  const mix = (w.step * f.stepShare + w.cos * f.textCosine + w.trigger * f.triggerSim + w.name * f.nameSim) / (w.step + w.cos + w.trigger + w.name);
  return mix * f.keyShare ** w.key;
}

function clip(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The evidence of a pair, in short sentences. */
function evidenceOf(a: Prepared, b: Prepared, f: PairFeatures): string[] {
  const shared = f.aCover.map((j, i) => [i, j] as const).filter(([, j]) => j >= 0);
  const evidence = [
    `${shared.length} of ${a.steps.length} steps of ${a.path} match steps of ${b.path}, ${f.bCover.filter((j) => j >= 0).length} of ${b.steps.length} the other way`,
  ];
  for (const [i, j] of shared.slice(0, 2)) evidence.push(`shared step: "${clip(a.steps[i].raw)}" ~ "${clip(b.steps[j].raw)}"`);
  evidence.push(`text similarity ${f.textCosine.toFixed(2)} (TF-IDF cosine)`);
  const triggerShared = [...new Set(a.trigger)].filter((w) => b.trigger.includes(w));
  if (triggerShared.length > 0) evidence.push(`trigger overlap ${f.triggerSim.toFixed(2)}: ${triggerShared.slice(0, 6).join(', ')}`);
  const nameShared = [...a.name].filter((w) => b.name.has(w));
  if (nameShared.length > 0) evidence.push(`name tokens shared: ${nameShared.join(', ')}`);
  return evidence;
}

/**
 * Calls `visit` for each pair whose TF-IDF cosine is at least CANDIDATE_COSINE: row by row, the
 * dot products over the postings of the terms that are not in most skills are accumulated in one
 * array (all-pairs similarity search), and the full cosine is taken for the pairs that pass.
 */
function forEachCandidate(
  prepared: readonly Prepared[],
  onProgress: SimilarityOptions['onProgress'],
  visit: (i: number, j: number, cosine: number) => void,
): void {
  const n = prepared.length;
  const postings = new Map<string, { ids: number[]; weights: number[] }>();
  prepared.forEach((p, i) => {
    for (const [t, w] of p.vector) {
      let list = postings.get(t);
      if (!list) {
        list = { ids: [], weights: [] };
        postings.set(t, list);
      }
      list.ids.push(i);
      list.weights.push(w);
    }
  });
  const maxDf = Math.max(MIN_COMMON, Math.ceil(COMMON_SHARE * n));
  const acc = new Float64Array(n);
  const touched: number[] = [];
  for (let i = 0; i < n; i += 1) {
    if (i % 100 === 0) onProgress?.(i, n);
    for (const [t, w] of prepared[i].vector) {
      const list = postings.get(t) as { ids: number[]; weights: number[] };
      if (list.ids.length < 2 || list.ids.length > maxDf) continue;
      // ids ascend: walk back over the pairs (i, j > i) only
      for (let k = list.ids.length - 1; k >= 0 && list.ids[k] > i; k -= 1) {
        const j = list.ids[k];
        if (acc[j] === 0) touched.push(j);
        acc[j] += w * list.weights[k];
      }
    }
    for (const j of touched) {
      // the dot product over the rarer terms is a lower bound of the cosine
      if (acc[j] >= CANDIDATE_COSINE / 2) {
        const c = cosine(prepared[i].vector, prepared[j].vector);
        if (c >= CANDIDATE_COSINE) visit(i, j, c);
      }
      acc[j] = 0;
    }
    touched.length = 0;
  }
  onProgress?.(n, n);
}

/**
 * The pairs of `skills` that look like the same procedure (score at or above the threshold), best
 * first, each with its evidence: how many steps match each way (with two of them), the text's
 * TF-IDF cosine, the trigger's and the name's shared words.
 */
export function findSimilarPairs(skills: readonly SkillText[], options: SimilarityOptions = {}): SimilarPair[] {
  const threshold = options.threshold ?? DUPLICATE_THRESHOLD;
  const prepared = prepare(skills);
  const out: SimilarPair[] = [];
  forEachCandidate(prepared, options.onProgress, (i, j, textCosine) => {
    if (bound(prepared[i], prepared[j], textCosine) < threshold) return;
    const f = features(prepared[i], prepared[j], textCosine);
    const score = scoreOf(f);
    if (score >= threshold)
      out.push({ a: prepared[i].path, b: prepared[j].path, score: Math.round(score * 1000) / 1000, evidence: evidenceOf(prepared[i], prepared[j], f) });
  });
  return out.sort((x, y) => y.score - x.score || x.a.localeCompare(y.a) || x.b.localeCompare(y.b));
}

/** Every candidate pair with its score and features, for the measurement script's tuning. */
export function pairFeatures(skills: readonly SkillText[]): { a: string; b: string; score: number; features: PairFeatures }[] {
  const prepared = prepare(skills);
  const out: { a: string; b: string; score: number; features: PairFeatures }[] = [];
  forEachCandidate(prepared, undefined, (i, j, textCosine) => {
    const f = features(prepared[i], prepared[j], textCosine);
    out.push({ a: prepared[i].path, b: prepared[j].path, score: scoreOf(f), features: f });
  });
  return out;
}
