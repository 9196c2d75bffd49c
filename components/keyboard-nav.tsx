'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

const ROUTES: Record<string, string> = { o: '/', i: '/inbox', c: '/changelog', k: '/skills', s: '/sessions', d: '/dream', e: '/evaluation', h: '/health' };

/** `g` then a letter jumps to a section; `/` focuses search. Ignored while typing in a field. */
export function KeyboardNav() {
  const router = useRouter();
  useEffect(() => {
    let pendingG = false;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
      if (event.metaKey || event.ctrlKey || event.altKey) return;
      if (event.key === '/') {
        event.preventDefault();
        router.push('/search');
        return;
      }
      if (pendingG && ROUTES[event.key]) {
        router.push(ROUTES[event.key]);
        pendingG = false;
        return;
      }
      pendingG = event.key === 'g';
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [router]);
  return null;
}
