'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useRef, useState } from 'react';
import { exportReportAction, reportTextAction } from '@/lib/actions/report';
import { noteHref } from '@/lib/markdown/hrefs';

type ExportResult = Extract<Awaited<ReturnType<typeof exportReportAction>>, { ok: true }>['data'];

function exportMessage(result: ExportResult): string {
  const commit = result.commit ? ` (commit ${result.commit.slice(0, 7)})` : '';
  if (result.unchanged) return `${result.path} already holds this report: nothing changed, no commit.`;
  const done = `${result.created ? 'Wrote' : 'Updated'} ${result.path}${commit}.`;
  return result.replacedVersion
    ? `${done} It replaced a version someone edited; theirs stays in history (commit ${result.replacedVersion.slice(0, 7)}) and can be reverted from the changelog.`
    : done;
}

/**
 * "What the agents did" for one ISO week: Export writes it as a report note (one commit, none when
 * unchanged) and links to it; Copy puts the same text on the clipboard for a team chat, or, where
 * the browser refuses, selects it for the person to copy.
 */
export function ReportExport({ week, origin = {} }: { week: string; origin?: { machine?: string; person?: string } }) {
  const client = useQueryClient();
  const textId = useId();
  const textRef = useRef<HTMLTextAreaElement>(null);
  const [shown, setShown] = useState(false);
  const [copyStatus, setCopyStatus] = useState<{ ok: boolean; message: string } | null>(null);
  // Narrowed to a machine or person, the text is that part of the week; Export always writes the whole team's report.
  const narrowed = Boolean(origin.machine || origin.person);
  const queryKey = ['report', week, origin.machine ?? null, origin.person ?? null] as const;
  const report = useQuery({
    queryKey,
    queryFn: async () => {
      const result = await reportTextAction({ week, ...origin });
      if (!result.ok) throw new Error(result.message);
      return result.data;
    },
    retry: false,
  });
  const exported = useMutation({
    mutationFn: async () => exportReportAction({ week }),
    onSuccess: (result) => {
      if (result.ok) client.setQueryData(['report', week, null, null], { week, path: result.data.path, text: result.data.text });
    },
  });

  const selectText = () => {
    setShown(true);
    // The text area renders first; then it is selected for Ctrl+C.
    requestAnimationFrame(() => {
      textRef.current?.focus();
      textRef.current?.select();
      const copied = document.execCommand?.('copy') ?? false;
      setCopyStatus(
        copied
          ? { ok: true, message: 'Copied the report text.' }
          : { ok: false, message: 'This browser did not let the page copy: the text is selected below, press Ctrl+C (⌘C on a Mac).' },
      );
    });
  };

  const copy = async () => {
    const text = report.data?.text;
    if (text === undefined) return;
    setCopyStatus(null);
    try {
      await navigator.clipboard.writeText(text);
      setCopyStatus({ ok: true, message: 'Copied the report text: paste it into a team chat or an Obsidian note.' });
    } catch {
      selectText();
    }
  };

  const failed =
    exported.data && !exported.data.ok ? exported.data.message : exported.isError ? `The export failed: ${(exported.error as Error).message}` : null;
  const done = exported.data?.ok ? exported.data.data : null;

  return (
    <section aria-labelledby={`${textId}-title`} className="mb-6 rounded-lg border border-stone-200 bg-white p-4">
      <h2 id={`${textId}-title`} className="text-base font-semibold">
        Report of {week}
      </h2>
      <p className="mt-1 text-sm text-stone-600">"What the agents did this week", as a note in the vault or as text for a team chat.</p>
      <div className="mt-3 flex flex-wrap gap-2">
        <button
          type="button"
          onClick={() => exported.mutate()}
          disabled={exported.isPending || narrowed}
          title={narrowed ? "Export writes the whole team's report: clear the machine and person filters first." : undefined}
          className="rounded bg-stone-800 px-3 py-1.5 text-sm text-white hover:bg-stone-900 disabled:opacity-50"
        >
          {exported.isPending ? 'Exporting…' : 'Export report'}
        </button>
        <button
          type="button"
          onClick={copy}
          disabled={!report.data}
          className="rounded bg-stone-200 px-3 py-1.5 text-sm hover:bg-stone-300 disabled:opacity-50"
        >
          Copy report text
        </button>
        <button
          type="button"
          aria-expanded={shown}
          aria-controls={textId}
          onClick={() => setShown((s) => !s)}
          className="rounded px-3 py-1.5 text-sm text-stone-700 underline"
        >
          {shown ? 'Hide text' : 'Show text'}
        </button>
      </div>
      {narrowed ? (
        <p className="mt-2 text-sm text-stone-600" data-testid="report-narrowed">
          The text covers only the work done{' '}
          {[origin.machine ? `on ${origin.machine}` : '', origin.person ? `at ${origin.person}'s vault` : ''].filter(Boolean).join(' and ')}. Export writes the
          whole team's report: clear the machine and person filters to export it.
        </p>
      ) : null}
      <div aria-live="polite" className="mt-2 text-sm">
        {done ? (
          <p role="status" className="text-green-800">
            {exportMessage(done)}{' '}
            <Link href={noteHref(done.path)} className="text-blue-800 underline">
              Open the report
            </Link>
          </p>
        ) : null}
        {copyStatus ? (
          <p role={copyStatus.ok ? 'status' : 'alert'} className={copyStatus.ok ? 'text-green-800' : 'text-amber-900'}>
            {copyStatus.message}
          </p>
        ) : null}
      </div>
      {failed ? (
        <p role="alert" className="mt-2 text-sm text-red-800">
          {failed}
        </p>
      ) : null}
      {report.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-800">
          The report text could not be made: {(report.error as Error).message}
        </p>
      ) : null}
      {shown ? (
        report.isPending ? (
          <p className="mt-2 text-sm text-stone-500">Making the report…</p>
        ) : (
          <textarea
            id={textId}
            ref={textRef}
            readOnly
            aria-label={`Report text of ${week}`}
            value={report.data?.text ?? ''}
            rows={16}
            className="mt-3 w-full rounded-md border border-stone-300 bg-stone-50 p-2 font-mono text-xs"
          />
        )
      ) : null}
    </section>
  );
}
