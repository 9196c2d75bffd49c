import { NextResponse } from 'next/server';
import { checkCurrentRequest } from '@/lib/server/gate';
import { getVault } from '@/lib/server/vault';
import { isVaultError, normalizeVaultPath } from '@/lib/vault';

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/** Vault attachments for embeds and links: confined to the vault; images and PDFs inline, the rest downloaded. */
export async function GET(_request: Request, { params }: { params: Promise<{ path: string[] }> }) {
  const verdict = await checkCurrentRequest('GET');
  if (!verdict.ok) return new NextResponse(verdict.reason, { status: verdict.status });
  const { path } = await params;
  try {
    const rel = normalizeVaultPath(path.join('/'));
    const ext = rel.slice(rel.lastIndexOf('.') + 1).toLowerCase();
    const type = TYPES[ext];
    const bytes = await (await getVault()).readFileBytes(rel);
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    return new NextResponse(new Uint8Array(bytes), {
      headers: {
        // Images and PDFs are shown; anything else is a download, never rendered by the browser.
        'Content-Type': type ?? 'application/octet-stream',
        ...(type ? {} : { 'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}` }),
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
        'Cache-Control': 'private, max-age=60',
      },
    });
  } catch (error) {
    if (isVaultError(error)) {
      const status = error.code === 'not_found' ? 404 : error.code === 'forbidden' || error.code === 'invalid_path' ? 403 : 500;
      return new NextResponse(error.message, { status });
    }
    throw error;
  }
}
