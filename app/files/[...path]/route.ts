import { NextResponse } from 'next/server';
import { checkCurrentRequest } from '@/lib/server/gate';
import { fetchVaultFile } from '@/lib/server/data';

/** Vault attachments for embeds and links: confined to the vault; images and PDFs inline, the rest downloaded. */
export async function GET(_request: Request, { params }: { params: Promise<{ path: string[] }> }) {
  const verdict = await checkCurrentRequest('GET');
  if (!verdict.ok) return new NextResponse(verdict.reason, { status: verdict.status });
  const { path } = await params;
  const file = await fetchVaultFile(path);
  if (!file.ok) return new NextResponse(file.message, { status: file.status });
  return new NextResponse(new Uint8Array(file.bytes), {
    headers: {
      // Images and PDFs are shown; anything else is a download, never rendered by the browser.
      'Content-Type': file.type ?? 'application/octet-stream',
      ...(file.type ? {} : { 'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}` }),
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'Cache-Control': 'private, max-age=60',
    },
  });
}
