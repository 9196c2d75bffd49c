'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { DreamChangeDetail } from '@/components/dream-change-detail';
import { DreamEmpty } from '@/components/dream-empty';
import { DreamRunList } from '@/components/dream-run-list';
import { usePageKeys } from '@/components/page-keys';
import { ActionError } from '@/lib/queries/action-error';
import { type DreamChangeItem, type DreamReview, dismissDreamChanges, dreamKeys, dreamReviewOptions, landDreamChanges } from '@/lib/queries/dream';

type Notice = { kind: 'ok'; text: string } | { kind: 'error'; text: string; detail?: string };

const STATUS: Record<DreamChangeItem['status'], { label: string; style: string }> = {
  pending: { label: 'pending', style: 'bg-sky-100 text-sky-900' },
  landed: { label: 'landed', style: 'bg-green-100 text-green-900' },
  dismissed: { label: 'dismissed', style: 'bg-stone-200 text-stone-700' },
  inapplicable: { label: 'no longer applies', style: 'bg-amber-100 text-amber-900' },
};

const KEYS: [string, string][] = [
  ['j', 'next'],
  ['k', 'previous'],
  ['l', 'land'],
  ['d', 'dismiss'],
];

function noticeOf(error: unknown): Notice {
  if (error instanceof ActionError) return { kind: 'error', text: error.message };
  return {
    kind: 'error',
    text: 'Lucid did not take the request, and nothing changed. Try again; if it fails again, the server log says why.',
    detail: (error as Error)?.message,
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The dream review: the runs, the chosen run's changes (each with its status, and why when it no
 * longer applies), the chosen change's diff; Land and Dismiss by button or key (j k l d; never
 * while typing in a field), and Land all pending.
 */
export function DreamView({ initial, initialRun, initialChange }: { initial: DreamReview; initialRun: string | null; initialChange: string | null }) {
  const queryClient = useQueryClient();
  const [runId, setRunId] = useState<string | null>(initial.run?.runId ?? initialRun);
  const [selectedId, setSelectedId] = useState<string | null>(initialChange);
  const [notice, setNotice] = useState<Notice | null>(null);
  const focusRow = useRef(false);

  const review = useQuery({ ...dreamReviewOptions(runId), initialData: runId === (initial.run?.runId ?? initialRun) ? initial : undefined });
  const data = review.data;
  const run = data?.run ?? null;
  const changes = run?.changes ?? [];
  const index = changes.findIndex((c) => c.id === selectedId);
  const current = index >= 0 ? changes[index] : (changes.find((c) => c.status === 'pending' || c.status === 'inapplicable') ?? changes[0] ?? null);
  const currentIndex = current ? changes.indexOf(current) : -1;

  const afterDecision = (text: string, settled: boolean) => {
    setNotice({ kind: 'ok', text: settled ? `${text} Run ${runId} is settled: every change is landed or dismissed, and its branch is deleted.` : text });
    if (settled) setRunId(null);
    focusRow.current = true;
    void queryClient.invalidateQueries({ queryKey: dreamKeys.all });
  };
  const land = useMutation({
    mutationFn: landDreamChanges,
    onSuccess: (result) => {
      const landed = result.landed.map((l) => `${l.id} (commit ${l.commit.slice(0, 7)})`).join(', ');
      const skipped = result.skipped.map((s) => `${s.id}: ${s.why}`).join(' ');
      if (result.landed.length === 0 && result.skipped.length > 0) {
        setNotice({ kind: 'error', text: `Nothing landed. ${skipped}` });
        void queryClient.invalidateQueries({ queryKey: dreamKeys.all });
        return;
      }
      afterDecision(`Landed ${landed || 'nothing'}.${skipped ? ` Not landed: ${skipped}` : ''}`, result.settled);
    },
    onError: (error) => setNotice(noticeOf(error)),
  });
  const dismiss = useMutation({
    mutationFn: dismissDreamChanges,
    onSuccess: (result) => afterDecision(`Dismissed ${result.dismissed.join(', ') || 'nothing'}.`, result.settled),
    onError: (error) => setNotice(noticeOf(error)),
  });
  const busy = land.isPending || dismiss.isPending;
  const pending = changes.filter((c) => c.status === 'pending').length;

  const doLand = () => {
    if (!run || !current || current.status !== 'pending' || busy) return;
    land.mutate({ runId: run.runId, changes: [current.id] });
  };
  const doDismiss = () => {
    if (!run || !current || (current.status !== 'pending' && current.status !== 'inapplicable') || busy) return;
    dismiss.mutate({ runId: run.runId, changes: [current.id] });
  };
  const landAll = () => {
    if (!run || pending === 0 || busy) return;
    land.mutate({ runId: run.runId });
  };
  const select = (id: string, focus: boolean) => {
    setSelectedId(id);
    setNotice(null);
    focusRow.current = focus;
  };
  const chooseRun = (id: string) => {
    setRunId(id);
    setSelectedId(null);
    setNotice(null);
  };

  // The key handler reads this render's state through a ref, so the listener is added once.
  const onKey = useRef<(event: KeyboardEvent) => void>(() => {});
  useEffect(() => {
    onKey.current = (event) => {
      const move = (delta: number) => {
        if (changes.length === 0) return;
        select(changes[Math.max(0, Math.min(changes.length - 1, Math.max(0, currentIndex) + delta))].id, true);
      };
      const act: Record<string, () => void> = { j: () => move(1), k: () => move(-1), l: doLand, d: doDismiss };
      const handler = act[event.key];
      if (!handler) return;
      event.preventDefault();
      handler();
    };
  });
  usePageKeys(onKey);

  useEffect(() => {
    if (!focusRow.current || !current) return;
    focusRow.current = false;
    const row = document.querySelector<HTMLElement>(`[data-dream-change="${CSS.escape(current.id)}"]`);
    row?.querySelector<HTMLButtonElement>('button')?.focus({ preventScroll: true });
    row?.scrollIntoView({ block: 'nearest' });
  });

  useEffect(() => {
    const params = new URLSearchParams();
    if (run) params.set('run', run.runId);
    if (run && current) params.set('change', current.id);
    const url = `/dream${params.size > 0 ? `?${params}` : ''}`;
    if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(null, '', url);
  }, [run, current]);

  const status = (
    <div role="status" aria-live="polite" className="min-h-6 text-sm text-green-800">
      {notice?.kind === 'ok' ? notice.text : null}
    </div>
  );
  const alert =
    notice?.kind === 'error' ? (
      <div role="alert" className="mb-3 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
        <p className="font-medium">{notice.text}</p>
        {notice.detail && notice.detail !== notice.text ? <p className="mt-1 text-red-800">{notice.detail}</p> : null}
      </div>
    ) : null;

  if (!data || data.runs.length === 0 || !run) {
    return (
      <div>
        {status}
        {alert}
        {review.isError ? (
          <p role="alert" className="mb-3 text-sm text-red-800">
            Could not read the dream runs: {review.error.message}
          </p>
        ) : review.isPending ? (
          <p className="text-sm text-stone-500">Loading the dream runs…</p>
        ) : (
          <DreamEmpty />
        )}
      </div>
    );
  }

  return (
    <div>
      <DreamRunList runs={data.runs} selected={run.runId} onSelect={chooseRun} />
      <section aria-label={`Run ${run.runId}`}>
        <header className="mb-3 flex flex-wrap items-start justify-between gap-3">
          <div>
            <h2 className="text-lg font-semibold tracking-tight">
              Run <span className="font-mono">{run.runId}</span>
            </h2>
            <p className="text-sm text-stone-600">
              Made <time dateTime={run.created}>{run.created.slice(0, 16).replace('T', ' ')} UTC</time>
              {run.base ? (
                <>
                  {' '}
                  on commit <code>{run.base.slice(0, 7)}</code>
                </>
              ) : null}{' '}
              · {plural(run.counts.changes, 'change')}: {run.counts.pending} pending, {run.counts.landed} landed, {run.counts.dismissed} dismissed
              {run.counts.inapplicable > 0 ? `, ${run.counts.inapplicable} no longer apply` : ''}
            </p>
            {run.baseMoved ? (
              <p className="text-sm text-stone-600">Your branch moved on since this run: each change is merged onto the notes as they are now when it lands.</p>
            ) : null}
          </div>
          <div className="flex flex-col items-end gap-2">
            <button
              type="button"
              onClick={landAll}
              disabled={busy || pending === 0}
              className="rounded-md bg-green-700 px-3 py-1.5 text-sm font-medium text-white disabled:cursor-not-allowed disabled:opacity-50"
            >
              {land.isPending && land.variables?.changes === undefined ? `Landing ${plural(pending, 'change')}…` : `Land all pending (${pending})`}
            </button>
            {busy ? (
              <p role="status" className="text-xs text-stone-600">
                {land.isPending ? 'Landing: one commit per change, each merged onto the notes as they are now…' : 'Recording the dismissal…'}
              </p>
            ) : null}
            <p role="note" aria-label="Keyboard shortcuts" className="flex gap-x-3 text-xs text-stone-500">
              {KEYS.map(([key, what]) => (
                <span key={key}>
                  <kbd className="rounded border border-stone-300 bg-white px-1 font-mono text-stone-700">{key}</kbd> {what}
                </span>
              ))}
            </p>
          </div>
        </header>
        {status}
        {alert}
        <ul aria-label="Changes" className="divide-y divide-stone-100 rounded-md border border-stone-200 bg-white text-sm">
          {changes.map((change) => {
            const selected = change.id === current?.id;
            return (
              <li
                key={change.id}
                data-dream-change={change.id}
                data-status={change.status}
                className={`flex items-start gap-3 px-3 py-2 ${selected ? 'bg-sky-50 outline outline-2 -outline-offset-2 outline-sky-500' : ''}`}
              >
                <button
                  type="button"
                  tabIndex={selected ? 0 : -1}
                  aria-current={selected ? 'true' : undefined}
                  onClick={() => select(change.id, false)}
                  className="flex flex-1 flex-wrap items-baseline gap-x-2 text-left"
                >
                  <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS[change.status].style}`}>{STATUS[change.status].label}</span>
                  <span className="font-medium">{change.op}</span>
                  <code className="break-all">{change.path}</code>
                  <span className="w-full truncate text-stone-600">{change.reason}</span>
                </button>
              </li>
            );
          })}
        </ul>
        {current ? (
          <div className="mt-4">
            <div className="flex flex-wrap gap-2">
              <button
                type="button"
                onClick={doLand}
                disabled={busy || current.status !== 'pending'}
                aria-keyshortcuts="l"
                aria-label="Land"
                className="rounded-md bg-green-700 px-3 py-1.5 text-sm font-medium text-white disabled:cursor-not-allowed disabled:opacity-50"
              >
                Land <kbd className="ml-1 text-xs opacity-75">l</kbd>
              </button>
              <button
                type="button"
                onClick={doDismiss}
                disabled={busy || (current.status !== 'pending' && current.status !== 'inapplicable')}
                aria-keyshortcuts="d"
                aria-label="Dismiss"
                className="rounded-md border border-stone-300 bg-white px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50"
              >
                Dismiss <kbd className="ml-1 text-xs opacity-75">d</kbd>
              </button>
            </div>
            <DreamChangeDetail change={current} />
          </div>
        ) : null}
      </section>
    </div>
  );
}
