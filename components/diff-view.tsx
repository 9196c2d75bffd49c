'use client';

import { html } from 'diff2html';
import 'diff2html/bundles/css/diff2html.min.css';
import { useEffect, useMemo, useState } from 'react';

type Layout = 'side-by-side' | 'line-by-line';

const LAYOUT_KEY = 'lucid.diff-layout';
/** Past these, diff2html shows TOO_BIG instead of a diff that would hang the page (catalog #45 a). */
const MAX_CHANGES = 5_000;
const MAX_LINE_LENGTH = 10_000;
// A fixed sentence: diff2html's own message interpolates the file name (catalog #32).
const TOO_BIG = 'This change is too big to show here; look at it with git.';

/**
 * A unified patch (as `git diff` or jsdiff's createTwoFilesPatch print it) drawn by diff2html, side
 * by side or line by line as the person last chose (remembered in this browser). diff2html escapes
 * every line and file name it draws.
 */
export function DiffView({ patch, empty = 'No changes.' }: { patch: string; empty?: string }) {
  const [layout, setLayout] = useState<Layout>('side-by-side');
  useEffect(() => {
    const saved = window.localStorage.getItem(LAYOUT_KEY);
    if (saved === 'side-by-side' || saved === 'line-by-line') setLayout(saved);
  }, []);
  const choose = (next: Layout) => {
    setLayout(next);
    window.localStorage.setItem(LAYOUT_KEY, next);
  };
  const markup = useMemo(
    () =>
      patch.trim() === ''
        ? ''
        : html(patch, {
            drawFileList: false,
            outputFormat: layout,
            matching: 'lines',
            diffMaxChanges: MAX_CHANGES,
            diffMaxLineLength: MAX_LINE_LENGTH,
            diffTooBigMessage: () => TOO_BIG,
          }),
    [patch, layout],
  );
  if (markup === '') return <p className="text-sm text-stone-500">{empty}</p>;
  return (
    <div className="diff-view">
      <fieldset aria-label="Diff layout" className="mb-2 flex gap-1 text-xs">
        {(['side-by-side', 'line-by-line'] as const).map((option) => (
          <button
            key={option}
            type="button"
            aria-pressed={layout === option}
            onClick={() => choose(option)}
            className={`rounded px-2 py-0.5 ${layout === option ? 'bg-stone-900 text-white' : 'bg-stone-200 text-stone-700 hover:bg-stone-300'}`}
          >
            {option === 'side-by-side' ? 'Side by side' : 'Line by line'}
          </button>
        ))}
      </fieldset>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: diff2html's output, every line and file name escaped by it (catalog #32, tested in Chromium) */}
      <div className="overflow-x-auto text-xs" dangerouslySetInnerHTML={{ __html: markup }} />
    </div>
  );
}
