import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import path from 'node:path';
import { InboxCount } from '@/components/inbox-count';
import { KeyboardNav } from '@/components/keyboard-nav';
import { NavLink } from '@/components/nav-link';
import { QueryProvider } from '@/components/query-provider';
import { SyncBadge } from '@/components/sync-badge';
import { serverConfig } from '@/lib/server/config';
import { fetchInboxCount } from '@/lib/server/data';
import './globals.css';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: 'Lucid',
  description: 'What your agents remember, and what they did',
  referrer: 'no-referrer',
};

const SECTIONS: { href: string; label: string; shortcut: string }[] = [
  { href: '/', label: 'Overview', shortcut: 'g o' },
  { href: '/inbox', label: 'Inbox', shortcut: 'g i' },
  { href: '/changelog', label: 'Changelog', shortcut: 'g c' },
  { href: '/skills', label: 'Skills', shortcut: 'g k' },
  { href: '/sessions', label: 'Sessions', shortcut: 'g s' },
  { href: '/dream', label: 'Dream', shortcut: 'g d' },
  { href: '/evaluation', label: 'Evaluation', shortcut: 'g e' },
  { href: '/search', label: 'Search', shortcut: '/' },
  { href: '/health', label: 'Health', shortcut: 'g h' },
];

export default async function RootLayout({ children }: { children: ReactNode }) {
  const vaultName = path.basename(serverConfig().vaultRoot);
  const inboxCount = await fetchInboxCount();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <QueryProvider>
          <KeyboardNav />
          <div className="flex min-h-screen">
            <aside className="w-56 shrink-0 border-r border-stone-200 bg-stone-100 p-4">
              <div className="mb-6">
                <div className="text-lg font-semibold tracking-tight">Lucid</div>
                <div className="truncate text-xs text-stone-500" title={serverConfig().vaultRoot}>
                  {vaultName}
                </div>
                <SyncBadge />
              </div>
              <nav aria-label="Sections" className="flex flex-col gap-0.5">
                {SECTIONS.map((s) => (
                  <NavLink key={s.href} {...s} badge={s.href === '/inbox' ? <InboxCount initial={inboxCount} /> : undefined} />
                ))}
              </nav>
            </aside>
            <main className="min-w-0 flex-1 px-8 py-6">{children}</main>
          </div>
        </QueryProvider>
      </body>
    </html>
  );
}
