'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { InboxActions } from '@/components/inbox-actions';
import { InboxChange } from '@/components/inbox-change';
import { InboxEditor } from '@/components/inbox-editor';
import { InboxEmpty } from '@/components/inbox-empty';
import { InboxFilters } from '@/components/inbox-filters';
import { InboxItemHeader } from '@/components/inbox-item-header';
import { InboxKeysHint } from '@/components/inbox-keys-hint';
import { InboxMerge } from '@/components/inbox-merge';
import { InboxQueue } from '@/components/inbox-queue';
import { InboxRejectForm } from '@/components/inbox-reject-form';
import { usePageKeys } from '@/components/page-keys';
import { ActionError } from '@/lib/queries/action-error';
import {
  acceptInboxItem,
  hasConflictMarkers,
  INBOX_POLL_MS,
  type InboxFilterValues,
  type InboxList,
  inboxItemQueryOptions,
  inboxKeys,
  inboxListQueryOptions,
  inboxPollInterval,
  rejectInboxItem,
  setInboxPollingPaused,
  subscribeInboxPolling,
} from '@/lib/queries/inbox';

type Mode = 'view' | 'edit' | 'reject';
type Notice = { kind: 'ok'; text: string } | { kind: 'error'; text: string; detail?: string; reload?: boolean };

const sameFilter = (a: InboxFilterValues, b: InboxFilterValues) =>
  (a.agent ?? '') === (b.agent ?? '') && (a.flag ?? '') === (b.flag ?? '') && (a.action ?? '') === (b.action ?? '');

/** An action's failure in words; a conflict offers to reload the item as it is now. */
function noticeOf(error: unknown): Notice {
  if (error instanceof ActionError) {
    if (error.code === 'conflict') {
      return {
        kind: 'error',
        text: 'Changed since you opened it: nothing was saved. Reload the item to see the note as it is now.',
        detail: error.message,
        reload: true,
      };
    }
    if (error.code === 'not_found')
      return { kind: 'error', text: 'This item is no longer in the inbox: it was accepted or rejected elsewhere.', detail: error.message };
    return { kind: 'error', text: error.message };
  }
  return {
    kind: 'error',
    text: 'Lucid did not take the request, and nothing was saved. Try again; if it fails again, the server log says why.',
    detail: (error as Error)?.message,
  };
}

/**
 * The inbox page: the queue (oldest first, filtered, polled), the selected item with what it would
 * change, and Accept, Edit and Reject by button or key (j k a e r; never while typing in a field).
 */
export function InboxView({ initial, initialFilter, initialItem }: { initial: InboxList; initialFilter: InboxFilterValues; initialItem: string | null }) {
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState(initialFilter);
  const [selectedId, setSelectedId] = useState<string | null>(initialItem);
  const [anchor, setAnchor] = useState(0);
  const [mode, setMode] = useState<Mode>('view');
  const [draft, setDraft] = useState('');
  const [mergeDraft, setMergeDraft] = useState<{ key: string; text: string } | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const focusRow = useRef(false);
  const interval = useSyncExternalStore(subscribeInboxPolling, inboxPollInterval, () => INBOX_POLL_MS);

  const list = useQuery({ ...inboxListQueryOptions(filter, interval), initialData: sameFilter(filter, initialFilter) ? initial : undefined });
  const items = list.data?.items ?? [];
  const index = items.findIndex((i) => i.id === selectedId);
  // The selected item went away (accepted elsewhere, filtered out): the one now at its place.
  const currentId = index >= 0 ? selectedId : (items[Math.min(anchor, items.length - 1)]?.id ?? null);
  const currentIndex = currentId === null ? -1 : items.findIndex((i) => i.id === currentId);

  const detail = useQuery(inboxItemQueryOptions(currentId));
  const d = detail.data?.id === currentId ? detail.data : undefined;
  const mergeKey = d?.merge ? `${d.id}:${d.currentHash}` : null;
  const mergeText = mergeDraft && mergeDraft.key === mergeKey ? mergeDraft.text : (d?.merge?.text ?? '');

  const cannotApply = 'This item cannot be applied: only Reject is possible.';
  const acceptGate: string | null = !d
    ? ''
    : d.problem
      ? cannotApply
      : d.targetChanged && !d.merge && d.action !== 'delete'
        ? 'The note changed since the proposal and the version it was based on is not in git: use Edit to write the version to keep.'
        : d.merge && hasConflictMarkers(mergeText)
          ? 'Resolve the conflict markers in the merged text to accept.'
          : null;
  const editGate: string | null = !d ? '' : d.problem ? cannotApply : d.action === 'delete' ? 'A delete has nothing to edit.' : null;

  const select = (id: string | null, focus: boolean) => {
    setSelectedId(id);
    const at = id === null ? -1 : items.findIndex((i) => i.id === id);
    if (at >= 0) setAnchor(at);
    setMode('view');
    setNotice(null);
    focusRow.current = focus;
  };

  const afterDecision = (id: string, text: string) => {
    const at = items.findIndex((i) => i.id === id);
    const next = items[at + 1] ?? items[at - 1] ?? null;
    setSelectedId(next?.id ?? null);
    setAnchor(Math.max(0, at));
    setMode('view');
    setNotice({ kind: 'ok', text });
    focusRow.current = true;
    queryClient.removeQueries({ queryKey: inboxKeys.item(id) });
    queryClient.setQueriesData<InboxList>({ queryKey: ['inbox', 'list'] }, (old) =>
      old ? { ...old, items: old.items.filter((i) => i.id !== id), total: Math.max(0, old.total - 1) } : old,
    );
    queryClient.setQueryData<number>(inboxKeys.count, (n) => (typeof n === 'number' ? Math.max(0, n - 1) : n));
    void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
  };
  const onFailure = (error: unknown) => {
    setNotice(noticeOf(error));
    if (error instanceof ActionError && error.code === 'not_found') void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
  };

  const accept = useMutation({
    mutationFn: acceptInboxItem,
    onSuccess: (result, input) =>
      afterDecision(input.id, `Accepted${result.edited ? ' your version of' : ''} ${result.target} (commit ${result.commit.slice(0, 7)}).`),
    onError: onFailure,
  });
  const reject = useMutation({
    mutationFn: rejectInboxItem,
    onSuccess: (result, input) => afterDecision(input.id, `Rejected (commit ${result.commit.slice(0, 7)}).`),
    onError: onFailure,
  });
  const busy = accept.isPending || reject.isPending;

  const doAccept = () => {
    if (!d || acceptGate !== null || busy) return;
    accept.mutate({ id: d.id, expectedTargetHash: d.currentHash, text: d.merge ? mergeText : undefined });
  };
  const doAcceptEdited = () => {
    if (!d || busy || hasConflictMarkers(draft)) return;
    accept.mutate({ id: d.id, expectedTargetHash: d.currentHash, text: draft });
  };
  const startEdit = () => {
    if (!d || editGate !== null || busy) return;
    setDraft(d.merge ? mergeText : (d.result ?? d.proposal ?? ''));
    setNotice(null);
    setMode('edit');
  };
  const startReject = () => {
    if (!d || busy) return;
    setNotice(null);
    setMode('reject');
  };
  const cancel = () => {
    setMode('view');
    focusRow.current = true;
  };
  const reload = () => {
    setNotice(null);
    setMergeDraft(null);
    void detail.refetch();
  };
  const changeFilter = (next: InboxFilterValues) => {
    setFilter(next);
    setMode('view');
    setNotice(null);
  };

  // The key handler reads this render's state through a ref, so the listener is added once.
  const onKey = useRef<(event: KeyboardEvent) => void>(() => {});
  useEffect(() => {
    onKey.current = (event) => {
      if (mode !== 'view') return;
      const move = (delta: number) => {
        if (items.length === 0) return;
        const from = Math.max(0, currentIndex);
        select(items[Math.max(0, Math.min(items.length - 1, from + delta))].id, true);
      };
      const act: Record<string, () => void> = { j: () => move(1), k: () => move(-1), a: doAccept, e: startEdit, r: startReject };
      const run = act[event.key];
      if (!run) return;
      // Kept from reaching the editor or the reason box that the key itself opens.
      event.preventDefault();
      run();
    };
  });
  usePageKeys(onKey);

  useEffect(() => {
    if (!focusRow.current || currentId === null || mode !== 'view') return;
    focusRow.current = false;
    const row = document.querySelector<HTMLElement>(`[data-inbox-id="${CSS.escape(currentId)}"]`);
    row?.querySelector<HTMLButtonElement>('button')?.focus({ preventScroll: true });
    row?.scrollIntoView({ block: 'nearest' });
  });

  useEffect(() => {
    setInboxPollingPaused(mode !== 'view');
  }, [mode]);
  useEffect(() => () => setInboxPollingPaused(false), []);

  const total = list.data?.total;
  useEffect(() => {
    if (total !== undefined) queryClient.setQueryData(inboxKeys.count, total);
  }, [total, queryClient]);

  useEffect(() => {
    const params = new URLSearchParams();
    if (filter.agent) params.set('agent', filter.agent);
    if (filter.flag) params.set('flag', filter.flag);
    if (filter.action) params.set('action', filter.action);
    if (currentId) params.set('item', currentId);
    const url = `/inbox${params.size > 0 ? `?${params}` : ''}`;
    if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(null, '', url);
  }, [filter, currentId]);

  const detailError = detail.error instanceof ActionError && detail.error.code === 'not_found';
  useEffect(() => {
    if (detailError) void queryClient.invalidateQueries({ queryKey: ['inbox', 'list'] });
  }, [detailError, queryClient]);

  return (
    <div>
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <InboxFilters filter={filter} agents={list.data?.agents ?? []} flags={list.data?.flags ?? []} onChange={changeFilter} />
        <InboxKeysHint />
      </div>
      <div role="status" aria-live="polite" className="min-h-6 text-sm text-green-800">
        {notice?.kind === 'ok' ? notice.text : null}
      </div>
      {notice?.kind === 'error' ? (
        <div role="alert" className="mb-3 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          <p className="font-medium">{notice.text}</p>
          {notice.detail && notice.detail !== notice.text ? <p className="mt-1 text-red-800">{notice.detail}</p> : null}
          {notice.reload ? (
            <button type="button" onClick={reload} className="mt-2 rounded-md border border-red-300 bg-white px-2 py-1">
              Reload the item
            </button>
          ) : null}
        </div>
      ) : null}
      {list.isError ? (
        <p role="alert" className="mb-3 text-sm text-red-800">
          Could not read the inbox: {list.error.message}
        </p>
      ) : null}
      {items.length === 0 ? (
        list.isPending ? (
          <p className="text-sm text-stone-500">Loading the inbox…</p>
        ) : (
          <InboxEmpty filtered={Boolean(filter.agent || filter.flag || filter.action)} total={total ?? 0} onClear={() => changeFilter({})} />
        )
      ) : (
        <>
          <InboxQueue items={items} selectedId={currentId} onSelect={(id) => select(id, false)} />
          <div className="mt-6">
            {detail.isError ? (
              <p role="alert" className="text-sm text-red-800">
                {detailError
                  ? 'This item is no longer in the inbox: it was accepted or rejected elsewhere.'
                  : `Could not open this item: ${detail.error.message}`}
              </p>
            ) : !d ? (
              <p className="text-sm text-stone-500">Loading the item…</p>
            ) : (
              <article aria-label="Selected item">
                <InboxItemHeader detail={d} />
                {mode === 'edit' ? (
                  <InboxEditor current={d.current} value={draft} onChange={setDraft} onAccept={doAcceptEdited} onCancel={cancel} busy={busy} />
                ) : (
                  <>
                    {mode === 'reject' ? (
                      <div className="mb-4">
                        <InboxRejectForm busy={busy} onCancel={cancel} onReject={(reason) => reject.mutate({ id: d.id, reason: reason || undefined })} />
                      </div>
                    ) : (
                      <InboxActions accept={acceptGate} edit={editGate} busy={busy} onAccept={doAccept} onEdit={startEdit} onReject={startReject} />
                    )}
                    {d.merge ? (
                      <InboxMerge merge={d.merge} value={mergeText} onChange={(text) => mergeKey && setMergeDraft({ key: mergeKey, text })} />
                    ) : (
                      <InboxChange detail={d} />
                    )}
                  </>
                )}
              </article>
            )}
          </div>
        </>
      )}
    </div>
  );
}
