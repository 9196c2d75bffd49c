import type Database from 'better-sqlite3';
import { termPhrases, tokenizeQuery } from '../../lib/vault/search/query';
import type { SearchHit, SearchOptions } from '../../lib/vault/search/search-index';
import { LONG_BODY_CHARS, longBodySnippet } from '../../lib/vault/search/snippet';

/**
 * `SearchIndex.search` as it was before issue 18 made it one pass (one SQL statement that computes
 * BM25 × coverage × title boost × session factor for every match, with each term's rowid set as an
 * `IN` subquery), kept only as the reference the new ranking must equal hit for hit. Run it on a
 * second connection to the same index file.
 */
export function referenceSearch(db: Database.Database, query: string, options: SearchOptions = {}): SearchHit[] {
  const phrases = termPhrases(query, { prefix: options.prefix });
  if (phrases.length === 0) return [];
  const match = phrases.join(' OR ');
  const where: string[] = ['notes_fts MATCH @match'];
  const limit = options.limit === undefined || !Number.isFinite(options.limit) ? 20 : Math.min(200, Math.max(1, Math.floor(options.limit)));
  const params: Record<string, unknown> = { match, limit };
  if (options.type) {
    where.push('n.type = @type');
    params.type = options.type;
  }
  if (options.project) {
    where.push('n.project = @project');
    params.project = options.project.endsWith('.md') ? options.project : `${options.project}.md`;
  }
  const folder = (options.folder ?? '')
    .replaceAll('\\', '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+|\/+$/g, '');
  if (folder) {
    where.push('substr(n.path, 1, length(@folder)) = @folder');
    params.folder = `${folder}/`;
  }
  const systemType = options.type === 'inbox' || options.type === 'eval-run';
  if (!options.includeSystem && !systemType) {
    const prefixes = (options.systemPrefixes ?? ['changelog.md', 'changelog/', 'inbox/', 'evals/', 'AGENTS.md']).filter(
      (prefix) => prefix !== '' && !(folder && `${folder}/`.startsWith(prefix)),
    );
    prefixes.forEach((prefix, i) => {
      where.push(`substr(n.path, 1, length(@system${i})) <> @system${i}`);
      params[`system${i}`] = prefix;
    });
  }
  const total = (db.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n;
  const weights = phrases.map((phrase) => {
    const df = (db.prepare('SELECT count(*) AS n FROM notes_fts WHERE notes_fts MATCH ?').get(phrase) as { n: number }).n;
    return df === 0 ? 0 : Math.log(1 + (total - df + 0.5) / (df + 0.5));
  });
  const weightSum = weights.reduce((sum, w) => sum + w, 0);
  if (weightSum === 0) return [];
  const share = (column: 'c' | 't') =>
    phrases
      .map((phrase, i) => {
        params[`${column}${i}`] = column === 'c' ? phrase : `{title aliases} : ${phrase}`;
        params[`${column}w${i}`] = weights[i] / weightSum;
        return `@${column}w${i} * (notes_fts.rowid IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH @${column}${i}))`;
      })
      .join(' + ');
  params.coverageBoost = 0.5;
  params.titleBoost = 0.5;
  params.sessionFactor = 0.8;
  const sql = `
    SELECT n.id, n.path, n.title, n.type,
      -bm25(notes_fts, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
        * (1 + @coverageBoost * (${share('c')}))
        * (1 + @titleBoost * (${share('t')}))
        * (CASE WHEN n.type = 'session' THEN @sessionFactor ELSE 1 END) AS score
    FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
    WHERE ${where.join(' AND ')}
    ORDER BY score DESC, n.path
    LIMIT @limit`;
  const rows = db.prepare(sql).all(params) as { id: number; path: string; title: string; type: string | null; score: number }[];
  return rows.map((row) => {
    const found = db
      .prepare(
        `SELECT CASE WHEN length(body) > ${LONG_BODY_CHARS} THEN body END AS long_body,
           CASE WHEN length(body) <= ${LONG_BODY_CHARS} THEN snippet(notes_fts, 5, char(2), char(3), '…', 24) END AS body,
           snippet(notes_fts, 0, char(2), char(3), '…', 24) AS title
         FROM notes_fts WHERE notes_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
      )
      .get(match, row.id) as { long_body: string | null; body: string | null; title: string | null } | undefined;
    const raw = found?.long_body ? longBodySnippet(found.long_body, tokenizeQuery(query), 24) : found?.body || found?.title || row.title;
    const snippet = raw
      .replaceAll('«', '‹')
      .replaceAll('»', '›')
      .replaceAll('\u0002', '«')
      .replaceAll('\u0003', '»')
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return { path: row.path, title: row.title, type: row.type, score: row.score, snippet };
  });
}
