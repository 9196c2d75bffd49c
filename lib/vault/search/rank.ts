import type Database from 'better-sqlite3';

type Prepare = (sql: string) => Database.Statement;

/** The ranking's constants (see search-index.ts, where each is explained). */
export interface RankWeights {
  bm25: string;
  coverageBoost: number;
  titleBoost: number;
  sessionFactor: number;
}

/** Which notes a search may return: exact type and project, a path prefix, and path prefixes left out. */
export interface RankFilter {
  type?: string;
  project?: string;
  /** A folder with its trailing '/', or '' for the whole vault. */
  folder: string;
  excluded: readonly string[];
}

/** One ranked note before its snippet is made. */
export interface RankedRow {
  id: number;
  path: string;
  title: string;
  type: string | null;
  score: number;
}

/**
 * The `notes` table's rows that a search filters on and shows, kept in memory by row id so that a
 * search reads no row it does not return. Writes on this connection update it (`set`, `delete`);
 * a commit by another connection (another process on the same file) is seen through SQLite's
 * `data_version` and reloads it; `invalidate` reloads it on the next search (after a rolled-back write).
 */
export class NoteRows {
  private paths: (string | undefined)[] = [];
  private titles: string[] = [];
  private types: (string | null)[] = [];
  private projects: (string | null)[] = [];
  private size = 0;
  private loaded = false;
  private dataVersion = -1;
  /** Reused per search: each matching note's weighted share of the terms, anywhere and in its title. */
  private coverage = new Float64Array(0);
  private titleCoverage = new Float64Array(0);

  /** Forget the rows: the next search reads them again. */
  invalidate(): void {
    this.loaded = false;
  }

  /** Record a row written on this connection. */
  set(id: number, path: string, title: string, type: string | null, project: string | null): void {
    if (!this.loaded) return;
    if (this.paths[id] === undefined) this.size++;
    this.paths[id] = path;
    this.titles[id] = title;
    this.types[id] = type;
    this.projects[id] = project;
  }

  /** Record a row deleted on this connection. */
  delete(id: number): void {
    if (!this.loaded || this.paths[id] === undefined) return;
    this.size--;
    this.paths[id] = undefined;
  }

  /** Brings the rows up to date with the database; call inside the search's read transaction. */
  refresh(prepare: Prepare): void {
    const version = prepare('PRAGMA data_version').pluck().get() as number;
    if (this.loaded && version === this.dataVersion) return;
    this.paths = [];
    this.titles = [];
    this.types = [];
    this.projects = [];
    this.size = 0;
    for (const [id, path, title, type, project] of prepare('SELECT id, path, title, type, project FROM notes').raw().iterate() as Iterable<
      [number, string, string, string | null, string | null]
    >) {
      this.paths[id] = path;
      this.titles[id] = title;
      this.types[id] = type;
      this.projects[id] = project;
      this.size++;
    }
    this.loaded = true;
    this.dataVersion = version;
  }

  /**
   * The best `limit` notes for the term phrases `phrases` that pass `filter`, best first (ties by path
   * in byte order), scored as BM25 × (1 + coverageBoost × weighted share of the terms the note holds)
   * × (1 + titleBoost × weighted share in its title or aliases) × the session factor, each term
   * weighted by its BM25 idf. One pass over each term's matches, then the matches by BM25 until no
   * later one can be among the best.
   */
  rank(prepare: Prepare, phrases: readonly string[], filter: RankFilter, limit: number, weights: RankWeights): RankedRow[] {
    const ids = prepare('SELECT group_concat(rowid) FROM notes_fts WHERE notes_fts MATCH ?').pluck();
    const termIds = phrases.map((phrase) => parseIds(ids.get(phrase) as string | null));
    const total = this.size;
    // Each term weighs its rarity (BM25's idf), so a note gains most for the rare words of a question.
    const idf = termIds.map(({ length: df }) => (df === 0 ? 0 : Math.log(1 + (total - df + 0.5) / (df + 0.5))));
    const idfSum = idf.reduce((sum, w) => sum + w, 0);
    if (idfSum === 0) return [];
    const span = this.paths.length;
    if (this.coverage.length < span) {
      this.coverage = new Float64Array(span);
      this.titleCoverage = new Float64Array(span);
    }
    const coverage = this.coverage.fill(0, 0, span);
    const titleCoverage = this.titleCoverage.fill(0, 0, span);
    // Summed term by term, in the question's order, so the figures are the same to the last bit.
    phrases.forEach((phrase, i) => {
      const share = idf[i] / idfSum;
      for (const id of termIds[i]) if (id < span) coverage[id] += share;
      for (const id of parseIds(ids.get(`{title aliases} : ${phrase}`) as string | null)) if (id < span) titleCoverage[id] += share;
    });

    const { paths, types, projects } = this;
    const { folder, excluded, type, project } = filter;
    const hitIds: number[] = [];
    const scores: number[] = [];
    // Matches come best BM25 first, and the boosts at most multiply it by `most` (the highest shares
    // any note has, with a margin for rounding): once that bound is below the `limit`-th best score so
    // far, no later match can enter the hits, nor tie with them.
    let most = (1 + weights.coverageBoost * maxOf(coverage, span)) * (1 + weights.titleBoost * maxOf(titleCoverage, span));
    most *= Math.max(1, weights.sessionFactor) * (1 + 1e-9);
    const top = new Float64Array(limit).fill(Number.NEGATIVE_INFINITY);
    const matches = prepare(`SELECT rowid, -bm25(notes_fts, ${weights.bm25}) FROM notes_fts WHERE notes_fts MATCH ? ORDER BY 2 DESC`).raw();
    for (const [id, bm25] of matches.iterate(phrases.join(' OR ')) as Iterable<[number, number]>) {
      if (bm25 >= 0 && bm25 * most < top[0]) break;
      const path = paths[id];
      if (path === undefined) continue;
      const noteType = types[id];
      if (type && noteType !== type) continue;
      if (project && projects[id] !== project) continue;
      if (folder && !path.startsWith(folder)) continue;
      if (excluded.length > 0 && excluded.some((prefix) => path.startsWith(prefix))) continue;
      const score =
        bm25 * (1 + weights.coverageBoost * coverage[id]) * (1 + weights.titleBoost * titleCoverage[id]) * (noteType === 'session' ? weights.sessionFactor : 1);
      hitIds.push(id);
      scores.push(score);
      if (score > top[0]) insertTop(top, score);
    }
    return this.best(hitIds, scores, limit);
  }

  /** The `limit` best of the scored notes: the cut-off score first, then a sort of those at or above it. */
  private best(hitIds: number[], scores: number[], limit: number): RankedRow[] {
    let cut = Number.NEGATIVE_INFINITY;
    if (scores.length > limit) cut = Float64Array.from(scores).sort()[scores.length - limit];
    const kept: number[] = [];
    for (let i = 0; i < scores.length; i++) if (scores[i] >= cut) kept.push(i);
    kept.sort((a, b) => scores[b] - scores[a] || compareBytes(this.paths[hitIds[a]]!, this.paths[hitIds[b]]!));
    return kept.slice(0, limit).map((i) => {
      const id = hitIds[i];
      return { id, path: this.paths[id]!, title: this.titles[id], type: this.types[id], score: scores[i] };
    });
  }
}

/** The largest of the first `span` values of `values`. */
function maxOf(values: Float64Array, span: number): number {
  let most = 0;
  for (let i = 0; i < span; i++) if (values[i] > most) most = values[i];
  return most;
}

/** Puts `score` into `top`, the best scores so far in ascending order, dropping the lowest. */
function insertTop(top: Float64Array, score: number): void {
  let i = 0;
  while (i + 1 < top.length && top[i + 1] < score) {
    top[i] = top[i + 1];
    i++;
  }
  top[i] = score;
}

/** The row ids of a `group_concat(rowid)`, in order. */
function parseIds(list: string | null): number[] {
  const out: number[] = [];
  if (!list) return out;
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list.charCodeAt(i);
    if (c === 44) {
      out.push(n);
      n = 0;
    } else n = n * 10 + c - 48;
  }
  out.push(n);
  return out;
}

/** SQLite's BINARY order of two strings (their UTF-8 bytes), which is code point order, not UTF-16's. */
function compareBytes(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 code unit's place in code point order: surrogates stand for code points above U+FFFF. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}
