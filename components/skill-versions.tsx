'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ChangelogRevert } from '@/components/changelog-revert';
import { SkillRestore } from '@/components/skill-restore';
import type { SkillVersion } from '@/lib/vault';

function when(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * A skill's versions, newest first, from git (across renames): version, date, actor, session and
 * the molt's reason. Any earlier text can be restored (a new molt); a molt can be reverted exactly
 * as from the changelog.
 */
export function SkillVersions({
  name,
  versions,
  truncated,
  expectedHash,
  archived,
  person,
}: {
  name: string;
  versions: SkillVersion[];
  truncated: boolean;
  expectedHash: string;
  archived: boolean;
  person: string;
}) {
  const router = useRouter();
  const [open, setOpen] = useState<{ sha: string; kind: 'restore' | 'revert' } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const done = (text: string) => {
    setOpen(null);
    setMessage(text);
    router.refresh();
  };
  const current = versions.find((v) => v.blob !== null)?.blob ?? null;
  if (versions.length === 0) return <p className="text-sm text-stone-500">Not committed yet: this skill has no history in git.</p>;
  return (
    <div>
      <p role="status" aria-live="polite" className="mb-2 text-sm text-green-800">
        {message}
      </p>
      <ol aria-label="Versions" className="space-y-2">
        {versions.map((v) => (
          <li
            key={v.sha}
            data-testid="skill-version"
            data-sha={v.sha}
            data-version={v.version ?? ''}
            className="rounded-md border border-stone-200 bg-white p-3 text-sm"
          >
            <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
              <span className="font-semibold tabular-nums" data-testid="version-number">
                {v.blob === null ? 'removed' : `v${v.version ?? '?'}`}
              </span>
              <time dateTime={new Date(v.time * 1000).toISOString()} className="text-stone-500 tabular-nums">
                {when(v.time)}
              </time>
              <span data-testid="version-actor" className="font-medium">
                {v.actor}
              </span>
              {v.op ? <span className="rounded bg-stone-100 px-1.5 text-xs text-stone-700">{v.op}</span> : null}
              {v.foreign ? <span className="rounded bg-amber-100 px-1.5 text-xs text-amber-900">not made by Lucid</span> : null}
              {v.session ? (
                <Link href={`/sessions/${encodeURIComponent(v.session)}`} className="text-xs text-blue-800 underline">
                  session
                </Link>
              ) : null}
              <code className="text-xs text-stone-500" title={v.sha}>
                {v.sha.slice(0, 7)}
              </code>
            </div>
            <p data-testid="version-reason" className="mt-1 text-stone-800">
              {v.reason.split('\n')[0] || <span className="text-stone-400">no reason given</span>}
            </p>
            {v.renamedFrom ? (
              <p className="mt-1 text-xs text-stone-600">
                Moved from <code>{v.renamedFrom}</code> to <code>{v.path}</code>
                {v.sameText ? ' (text unchanged)' : ''}
              </p>
            ) : v.path !== versions[0].path ? (
              <p className="mt-1 text-xs text-stone-600">
                Then at <code>{v.path}</code>
              </p>
            ) : null}
            <div className="mt-2 flex gap-2">
              {!archived && v.blob !== null && v.blob !== current ? (
                <button
                  type="button"
                  onClick={() => setOpen({ sha: v.sha, kind: 'restore' })}
                  className="rounded bg-stone-200 px-2 py-0.5 text-xs hover:bg-stone-300"
                >
                  Restore this version
                </button>
              ) : null}
              {v.op === 'molt' && v.editId ? (
                <button
                  type="button"
                  onClick={() => setOpen({ sha: v.sha, kind: 'revert' })}
                  className="rounded bg-stone-200 px-2 py-0.5 text-xs hover:bg-stone-300"
                >
                  Revert this molt…
                </button>
              ) : null}
            </div>
            {open?.sha === v.sha && open.kind === 'restore' ? (
              <SkillRestore
                name={name}
                commit={v.sha}
                version={v.version}
                expectedHash={expectedHash}
                person={person}
                onClose={() => setOpen(null)}
                onDone={done}
              />
            ) : null}
            {open?.sha === v.sha && open.kind === 'revert' ? (
              <ChangelogRevert
                entry={{
                  seq: v.seq,
                  sha: v.sha,
                  time: v.time,
                  actor: v.actor,
                  author: v.actor,
                  op: v.op,
                  editId: v.editId,
                  session: v.session,
                  subject: `${v.op} ${v.path}`,
                  reason: v.reason,
                  paths: [v.path],
                  foreign: v.foreign,
                  refused: null,
                }}
                onClose={() => setOpen(null)}
                onDone={done}
              />
            ) : null}
          </li>
        ))}
      </ol>
      {truncated ? <p className="mt-2 text-xs text-stone-500">Older versions are left out here; `git log --follow` shows them all.</p> : null}
    </div>
  );
}
