import { NextResponse } from 'next/server';
import { checkCurrentRequest } from '@/lib/server/gate';
import { getVault } from '@/lib/server/vault';

export const dynamic = 'force-dynamic';

/**
 * The file watcher's news as server-sent events: `ready` once subscribed (with the watch mode), then
 * one `change` each time edits reached the vault's listing, naming the paths. A page rendered after a
 * `change` shows what it brought. (The browser tests wait on it after an edit made outside Lucid.)
 */
export async function GET(request: Request) {
  const verdict = await checkCurrentRequest('GET');
  if (!verdict.ok) return new NextResponse(verdict.reason, { status: verdict.status });
  const vault = await getVault();
  const encoder = new TextEncoder();
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (event: string, data: unknown) => controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      const unsubscribe = vault.onListingChange((paths) => send('change', { paths }));
      const ping = setInterval(() => controller.enqueue(encoder.encode(': ping\n\n')), 15_000);
      stop = () => {
        unsubscribe();
        clearInterval(ping);
      };
      request.signal.addEventListener('abort', () => {
        stop();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
      send('ready', { mode: vault.watchState().mode });
    },
    cancel() {
      stop();
    },
  });
  return new NextResponse(stream, {
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
  });
}
