'use client';

import { useEffect, useRef } from 'react';

/** What every markdown editor of the dashboard takes, whatever draws it. */
export interface MarkdownEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** The editor's accessible name. */
  label: string;
  autoFocus?: boolean;
  /** Ctrl+Enter or Cmd+Enter. */
  onSubmit?: () => void;
  /** Escape. */
  onCancel?: () => void;
  /** Marks the text as not savable as it is (e.g. it still holds conflict markers). */
  invalid?: boolean;
  /** Id of the element that explains the state, for aria-describedby. */
  describedBy?: string;
}

/** A markdown text editor (a plain textarea for now: the props stay the same when CodeMirror draws it). */
export function MarkdownEditor({ value, onChange, label, autoFocus, onSubmit, onCancel, invalid, describedBy }: MarkdownEditorProps) {
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (autoFocus) box.current?.focus({ preventScroll: true });
  }, [autoFocus]);
  return (
    <textarea
      ref={box}
      aria-label={label}
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
      value={value}
      spellCheck={false}
      onChange={(e) => onChange(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && onCancel) {
          e.preventDefault();
          onCancel();
        } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && onSubmit) {
          e.preventDefault();
          onSubmit();
        }
      }}
      className={`block h-[28rem] w-full resize-y rounded-md border bg-white p-3 font-mono text-xs leading-5 ${invalid ? 'border-red-400' : 'border-stone-300'}`}
    />
  );
}
