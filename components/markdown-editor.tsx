'use client';

import { markdown } from '@codemirror/lang-markdown';
import { basicSetup, EditorView } from 'codemirror';
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

// A fixed height that scrolls inside, like the "note now" pane beside it.
const sizing = EditorView.theme({
  '&': { height: '28rem', backgroundColor: 'white' },
  '.cm-scroller': { overflow: 'auto', fontFamily: 'inherit', lineHeight: 'inherit' },
});

/**
 * A CodeMirror 6 markdown editor. Browser only (it draws into the DOM): load it with
 * next/dynamic and `ssr: false`. Its editable element (role textbox, contenteditable) carries the
 * label, so the page's single-letter shortcuts treat it as a text field.
 */
export function MarkdownEditor({ value, onChange, label, autoFocus, onSubmit, onCancel, invalid, describedBy }: MarkdownEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The editor is made once; its handlers read the latest props through this ref.
  const props = useRef({ value, onChange, label, onSubmit, onCancel, invalid, describedBy });
  props.current = { value, onChange, label, onSubmit, onCancel, invalid, describedBy };
  // Set while the text is replaced from outside, so that replacement is not reported back.
  const syncing = useRef(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: made once per mount; later props arrive through `props` and the effects below.
  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      doc: props.current.value,
      parent: host.current,
      extensions: [
        // Before basicSetup, so these keys reach the page rather than the default keymap.
        EditorView.domEventHandlers({
          keydown(event) {
            const { onSubmit: submit, onCancel: cancel } = props.current;
            if (event.key === 'Escape' && cancel) {
              event.preventDefault();
              cancel();
              return true;
            }
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && submit) {
              event.preventDefault();
              submit();
              return true;
            }
            return false;
          },
        }),
        basicSetup,
        markdown(),
        EditorView.lineWrapping,
        sizing,
        EditorView.contentAttributes.of(() => {
          const p = props.current;
          const attrs: Record<string, string> = { 'aria-label': p.label };
          if (p.invalid) attrs['aria-invalid'] = 'true';
          if (p.describedBy) attrs['aria-describedby'] = p.describedBy;
          return attrs;
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !syncing.current) props.current.onChange(update.state.doc.toString());
        }),
      ],
    });
    view.current = editor;
    if (autoFocus) editor.contentDOM.focus({ preventScroll: true });
    return () => {
      view.current = null;
      editor.destroy();
    };
  }, []);

  // A new value from outside (a reload of the item) replaces the text; the person's own typing
  // already matches it and changes nothing.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const current = editor.state.doc.toString();
    if (current === value) return;
    syncing.current = true;
    try {
      editor.dispatch({ changes: { from: 0, to: current.length, insert: value } });
    } finally {
      syncing.current = false;
    }
  }, [value]);

  // The label and the invalid state live on the editable element; an empty update re-reads them.
  // biome-ignore lint/correctness/useExhaustiveDependencies: these props are read through `props`; a change of any must redraw the attributes.
  useEffect(() => {
    view.current?.dispatch({});
  }, [label, invalid, describedBy]);

  return <div ref={host} className={`overflow-hidden rounded-md border font-mono text-xs leading-5 ${invalid ? 'border-red-400' : 'border-stone-300'}`} />;
}
