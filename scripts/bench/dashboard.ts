// The benchmark's dashboard section: `lucid serve` started on the generated vault, each page timed
// against reading the files it shows, and the server's memory against a bare Node process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { REPO_ROOT, type VaultManifest } from './generate';
import { dashboardSampling, everyPage, getPage, longestHistorySkill } from './pages';
import { failedRow, interleave, median, percentileRows, row } from './stats';
import type { ResultRow } from './targets';
import { ALL_PAGES, args, BIN, GIT_ENV, GIT_LOG_PAGE, readEveryFile, rgSearch, rows, run, say } from './common';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Peak resident memory (VmHWM) of a process and all its descendants, summed, in MB. */
function treePeakRss(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  let total = 0;
  const visit = (p: number) => {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0);
    } catch {
      // Gone.
    }
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return total / 1024;
}

/** A bare Node process's own peak resident memory, in MB. */
function bareNodeRss(): number {
  const out = run(
    process.execPath,
    ['-e', "process.stdout.write(/VmHWM:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status','utf8'))[1])"],
    REPO_ROOT,
  );
  return Number(out) / 1024;
}

async function startServer(root: string): Promise<{ child: ChildProcess; port: number; cookie: string; stop: () => Promise<void>; output: () => string }> {
  const port = await freePort();
  const token = randomBytes(24).toString('base64url');
  const child = spawn(process.execPath, [BIN, 'serve', '--vault', root, '--port', String(port), '--no-build'], {
    cwd: REPO_ROOT,
    env: { ...GIT_ENV, LUCID_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 120_000;
  while (!output.includes('Open: ')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`lucid serve did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The token becomes the cookie lucid_<port> through /?token=, as a person's browser gets it.
  const response = await fetch(`http://127.0.0.1:${port}/?token=${encodeURIComponent(token)}`, { redirect: 'manual' });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
  if (!cookie.startsWith(`lucid_${port}=`)) throw new Error(`no cookie from the token exchange (status ${response.status})`);
  await response.arrayBuffer();
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  // What the server printed, so a failed page's row carries the server's reason.
  return { child, port, cookie, stop, output: () => output };
}

export async function measureDashboard(root: string, manifest: VaultManifest, rg: string | null): Promise<void> {
  say('Dashboard: building once when needed…');
  const build = spawnSync(process.execPath, [BIN, 'build'], { cwd: REPO_ROOT, env: GIT_ENV, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('lucid build failed');
  const hub = manifest.hubs[0];
  const question = manifest.questions[0];
  const history = ['log', '--follow', '-p', '--', hub.path];
  const skill = longestHistorySkill((argv) => run('git', argv, root));
  // Pages that exist; a later page adds a line here with the baseline that stands for its work.
  // The first request after start reads the vault; the overview comes first, so its baseline is reading every note.
  const pages: { name: string; url: string; baseline: string; run: () => unknown; first?: { baseline: string; run: () => unknown } }[] = [
    {
      name: 'page / (overview)',
      url: '/',
      baseline: 'git log -n 100 --format=…',
      run: () => run('git', GIT_LOG_PAGE, root),
      first: { baseline: 'read, hash and scan every note in Node', run: () => readEveryFile(root) },
    },
    {
      name: 'page /notes/<note with 200 backlinks>',
      url: `/notes/${hub.path.split('/').map(encodeURIComponent).join('/')}`,
      baseline: 'git log --follow -p -- <path>',
      run: () => run('git', history, root),
    },
    {
      name: 'page /search?q=…',
      url: `/search?q=${encodeURIComponent(question)}`,
      baseline: "rg -l -i -e T1 … (the query's terms)",
      run: rgSearch(rg, root, question) ?? (() => undefined),
    },
    { name: 'page /changelog', url: '/changelog', baseline: 'git log -n 100 --format=…', run: () => run('git', GIT_LOG_PAGE, root) },
    // The page shows every version of the skill (each one's text read for its version number), its
    // current text and one diff: git's own account of the same is the file's history with every patch.
    ...(skill
      ? [
          {
            name: 'page /skills/<skill with the longest history>',
            url: `/skills/${encodeURIComponent(skill)}`,
            baseline: 'git log --follow -p -- <skill path>',
            run: () => run('git', ['log', '--follow', '-p', '--', `skills/${skill}.md`], root),
          },
        ]
      : []),
  ];
  if (ALL_PAGES) pages.push(...everyPage(root, pages, GIT_LOG_PAGE));
  const { starts, warmPerStart, timeoutMs } = dashboardSampling(args.large);
  // A page that fails or does not answer in time is recorded as failed; the others are still measured.
  const failed = new Map<string, string>();
  const first = new Map<string, { a: number[]; b: number[] }>();
  const warm = new Map<string, { a: number[]; b: number[] }>();
  const rss: number[] = [];
  const rssBase: number[] = [];
  for (let s = 0; s < starts; s += 1) {
    say(`Dashboard: server start ${s + 1} of ${starts}, ${pages.length} pages × (1 first + ${warmPerStart} warm)…`);
    const server = await startServer(root);
    try {
      const get = (url: string) => () => getPage(server.port, url, server.cookie, timeoutMs);
      const live = () => pages.filter((page) => !failed.has(page.name));
      const attempt = async (page: (typeof pages)[number], measure: () => Promise<void>) => {
        const since = server.output().length;
        await measure().catch((error: Error) => failed.set(page.name, `${error.message}${serverSaid(server.output().slice(since))}`));
      };
      for (const page of live()) {
        await attempt(page, async () => {
          const t = await interleave(1, get(page.url), page.first?.run ?? page.run);
          const f = first.get(page.name) ?? { a: [], b: [] };
          f.a.push(...t.a);
          f.b.push(...t.b);
          first.set(page.name, f);
          if (ALL_PAGES) say(`  ${page.name}: ${(t.a[0] / 1000).toFixed(1)} s`);
        });
      }
      for (const page of live()) {
        await attempt(page, async () => {
          const t = await interleave(warmPerStart, get(page.url), page.run, { warmup: 1 });
          const w = warm.get(page.name) ?? { a: [], b: [] };
          w.a.push(...t.a);
          w.b.push(...t.b);
          warm.set(page.name, w);
        });
      }
      rss.push(treePeakRss(server.child.pid!));
      rssBase.push(bareNodeRss());
    } finally {
      await server.stop();
    }
  }
  const canRatio = (page: (typeof pages)[number]) => rg !== null || !page.baseline.startsWith('rg');
  for (const page of pages) {
    // A page that failed in one start keeps the samples of the others, each row with the failure.
    const error = failed.get(page.name);
    if (error) say(`Dashboard: ${page.name} failed: ${error}`);
    const mark = (r: ResultRow): ResultRow => (error ? { ...r, error } : r);
    const f = first.get(page.name);
    const w = warm.get(page.name);
    rows.push(
      f
        ? mark(
            row(
              `${page.name}, first request after start (median of ${f.a.length})`,
              'ms',
              median(f.a),
              canRatio(page) ? (page.first?.baseline ?? page.baseline) : null,
              canRatio(page) ? median(f.b) : null,
            ),
          )
        : failedRow(`${page.name}, first request after start`, 'ms', error ?? 'no sample'),
    );
    rows.push(
      ...(w
        ? percentileRows(`${page.name}, warm`, w, canRatio(page) ? page.baseline : null).map(mark)
        : ['warm p50', 'warm p95'].map((what) => failedRow(`${page.name}, ${what}`, 'ms', error ?? 'no sample'))),
    );
  }
  rows.push(row(`server peak RSS, process tree (median of ${starts})`, 'MB', median(rss), 'peak RSS of a bare node process', median(rssBase)));
}

/** The server's last error lines, for a failed page's row ('' when it printed none). */
function serverSaid(output: string): string {
  const lines = output.split('\n').filter((l) => /error|Error|heap|killed|ENOMEM|ETIMEDOUT/.test(l));
  return lines.length ? ` (the server said: ${lines.slice(-3).join(' / ').slice(0, 600)})` : '';
}
