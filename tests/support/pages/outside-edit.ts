import http from 'node:http';
import { e2eServer } from '../e2e-vault';

/**
 * The dashboard's file watcher, heard from its own events (GET /api/listing-changes, server-sent):
 * an edit made outside Lucid (a file the test wrote, a raw git command) reaches the dashboard's
 * listing when the watcher's event arrives, 50–500 ms after the edit (docs/decisions.md, "Issue 18").
 * Listen before the edit; `seen` resolves when the listing has the path, and a page opened after it
 * shows what the edit brought, as a person's reload a moment later does.
 */
export async function listenToWatcher(): Promise<{ seen(path: string | RegExp): Promise<void>; close(): void }> {
  const { port, token } = e2eServer();
  const paths: string[] = [];
  const waiting = new Set<() => void>();
  let buffer = '';
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/api/listing-changes', headers: { Cookie: `lucid_${port}=${token}` } }, resolve);
    request.on('error', reject);
  });
  if (response.statusCode !== 200) throw new Error(`The watcher's events answered ${response.statusCode}.`);
  response.setEncoding('utf8');
  response.on('error', () => undefined);
  const ready = new Promise<string>((resolve, reject) => {
    response.on('data', (chunk: string) => {
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event === 'ready') resolve((JSON.parse(data ?? '{}') as { mode: string }).mode);
        if (event === 'change') paths.push(...(JSON.parse(data ?? '{}') as { paths: string[] }).paths);
        for (const wake of waiting) wake();
        end = buffer.indexOf('\n\n');
      }
    });
    response.on('end', () => reject(new Error('The watcher event stream ended.')));
  });
  const mode = await ready;
  if (mode !== 'watching') throw new Error(`The dashboard's vault is not watched (${mode}).`);
  const matches = (pattern: string | RegExp) => paths.some((p) => (typeof pattern === 'string' ? p === pattern : pattern.test(p)));
  return {
    seen: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`The dashboard's watcher did not report ${pattern} within 15 s (it reported: ${paths.join(', ') || 'nothing'}).`));
        }, 15_000);
        const check = () => {
          if (!matches(pattern)) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      }),
    close: () => response.destroy(),
  };
}
