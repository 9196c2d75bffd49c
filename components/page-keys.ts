'use client';

import { type RefObject, useEffect } from 'react';

/** Whether a key went to a field (a person typing), where a page's single-letter keys must not act. */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)));
}

/**
 * A review page's single-letter keys (j/k and its actions): `handler` is a ref the page sets on
 * every render, so it reads that render's state while the listener is added once. Keys typed in a
 * field, with a modifier, already handled, or right after `g` (KeyboardNav's section jump: `g d`
 * goes to a page, it does not press `d`) never reach it.
 */
export function usePageKeys(handler: RefObject<(event: KeyboardEvent) => void>): void {
  useEffect(() => {
    let afterG = false;
    const listener = (event: KeyboardEvent) => {
      if (isTyping(event.target) || event.metaKey || event.ctrlKey || event.altKey || event.defaultPrevented) return;
      const wasG = afterG;
      afterG = event.key === 'g';
      if (wasG) return;
      handler.current(event);
    };
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, [handler]);
}
