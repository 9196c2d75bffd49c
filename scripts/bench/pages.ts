/**
 * The dashboard section's survey of every page (`--pages all`, and always with `--large`): the pages
 * its own list lacks, how many server starts and warm requests to take, and a request that gives up
 * after a time-out instead of ending the run, so that one page that does not answer is recorded as
 * failed and the other pages are still measured.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { isoWeekOf } from '../../lib/vault/index';

/** A page the dashboard section measures, beside the baseline that stands for its work. */
export interface BenchPage {
  name: string;
  url: string;
  baseline: string;
  run: () => unknown;
}

/** Server starts and warm requests per page: the 10,000-note figures, or a survey of the large vault. */
export function dashboardSampling(large: boolean): { starts: number; warmPerStart: number; timeoutMs: number } {
  // At 50,000 notes a page can take minutes; two starts and a few warm requests say whether each
  // answers and how long it takes, in a run that ends within the hour.
  return large ? { starts: 2, warmPerStart: 4, timeoutMs: 300_000 } : { starts: 7, warmPerStart: 24, timeoutMs: 300_000 };
}

/** GET `url` with the session cookie; rejects on a status other than 200 or after `timeoutMs`. */
export function getPage(port: number, url: string, cookie: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // A new connection each time: Node's default agent keeps sockets alive, and a socket the server
    // closed while the baseline ran (its keep-alive is 5 s) fails the next request with "socket hang up".
    const request = http.get({ host: '127.0.0.1', port, path: url, headers: { cookie }, agent: false }, (response) => {
      response.on('data', () => undefined);
      response.on('error', reject);
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`GET ${url}: ${response.statusCode}`))));
    });
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`GET ${url}: no answer within ${timeoutMs / 1000} s`)));
    request.on('error', reject);
  });
}

/** The route a URL is served by, so a page already in the list is not added twice (`/skills/a` → `/skills/*`). */
export function routeOf(url: string): string {
  const [pathname, query = ''] = url.split('?');
  const parts = pathname.split('/').filter(Boolean);
  const route = parts.length <= 1 ? `/${parts.join('/')}` : `/${parts[0]}/*`;
  return query && parts.length === 0 ? `${route}?${query.split('=')[0]}` : route;
}

/** The skill whose note has the most commits (its page shows the longest history), or null. */
export function longestHistorySkill(git: (argv: string[]) => string): string | null {
  const counts = new Map<string, number>();
  for (const line of git(['log', '--format=', '--name-only', '--', 'skills']).split('\n')) {
    if (line.startsWith('skills/') && line.endsWith('.md')) counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
  return best ? path.basename(best, '.md') : null;
}

/** The ISO week (YYYY-Www) a week before the vault's newest commit: a full week of activity. */
function lastFullWeek(git: (argv: string[]) => string): string {
  return isoWeekOf(new Date(Number(git(['log', '-1', '--format=%ct']).trim()) * 1000 - 7 * 86_400_000), 'UTC');
}

/**
 * Every page of app/ the list `have` lacks, each with a git baseline: `git log -n 100` for the pages
 * that list the history's newest entries, and the skill's own `git log --follow -p` for its page.
 */
export function everyPage(root: string, have: readonly BenchPage[], gitLogPage: string[]): BenchPage[] {
  const git = (argv: string[]) => {
    const r = spawnSync('git', argv, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new Error(`git ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  };
  const logPage = { baseline: 'git log -n 100 --format=…', run: () => git(gitLogPage) };
  const session = readdirSync(path.join(root, 'sessions'))
    .filter((n) => n.endsWith('.md'))
    .sort()
    .at(-1);
  const skill = longestHistorySkill(git);
  const week = lastFullWeek(git);
  const candidates: BenchPage[] = [
    { name: `page /?week=<the last full week>`, url: `/?week=${week}`, ...logPage },
    { name: 'page /inbox', url: '/inbox', ...logPage },
    { name: 'page /sessions', url: '/sessions', ...logPage },
    ...(session ? [{ name: 'page /sessions/<newest session>', url: `/sessions/${encodeURIComponent(session.slice(0, -3))}`, ...logPage }] : []),
    { name: 'page /skills', url: '/skills', ...logPage },
    ...(skill
      ? [
          {
            name: 'page /skills/<skill with the longest history>',
            url: `/skills/${encodeURIComponent(skill)}`,
            baseline: 'git log --follow -p -- <the skill>',
            run: () => git(['log', '--follow', '-p', '--', `skills/${skill}.md`]),
          },
        ]
      : []),
    { name: 'page /evaluation', url: '/evaluation', ...logPage },
    { name: 'page /dream', url: '/dream', ...logPage },
    { name: 'page /health', url: '/health', ...logPage },
  ];
  const routes = new Set(have.map((p) => routeOf(p.url)));
  return candidates.filter((p) => !routes.has(routeOf(p.url)));
}
