'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';

/** A navigation entry that shows when its section is open, with an optional badge (the inbox's count). */
export function NavLink({ href, label, shortcut, badge }: { href: string; label: string; shortcut?: string; badge?: ReactNode }) {
  const pathname = usePathname();
  const active = href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      aria-current={active ? 'page' : undefined}
      className={`flex items-center justify-between rounded-md px-3 py-1.5 text-sm ${active ? 'bg-stone-900 text-white' : 'text-stone-700 hover:bg-stone-200'}`}
    >
      <span>{label}</span>
      {badge}
      {shortcut ? <kbd className={`text-xs ${active ? 'text-stone-300' : 'text-stone-400'}`}>{shortcut}</kbd> : null}
    </Link>
  );
}
