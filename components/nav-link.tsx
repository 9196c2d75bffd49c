'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

/** A navigation entry that shows when its section is open. */
export function NavLink({ href, label, shortcut }: { href: string; label: string; shortcut?: string }) {
  const pathname = usePathname();
  const active = href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      aria-current={active ? 'page' : undefined}
      className={`flex items-center justify-between rounded-md px-3 py-1.5 text-sm ${active ? 'bg-stone-900 text-white' : 'text-stone-700 hover:bg-stone-200'}`}
    >
      <span>{label}</span>
      {shortcut ? <kbd className={`text-xs ${active ? 'text-stone-300' : 'text-stone-400'}`}>{shortcut}</kbd> : null}
    </Link>
  );
}
