'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { DiffView } from '@/components/diff-view';
import { skillDiffOptions } from '@/lib/queries/skills';
import type { SkillVersion } from '@/lib/vault';

type Diff = { from: string; to: string; patch: string; tooBig: boolean };

function label(v: SkillVersion): string {
  return `v${v.version ?? '?'} · ${new Date(v.time * 1000).toISOString().slice(0, 10)} · ${v.actor} · ${v.sha.slice(0, 7)}`;
}

/**
 * The diff between any two versions the person picks (the latest molt's diff first), drawn with
 * diff2html side by side or line by line.
 */
export function SkillDiffPicker({ name, versions, initial }: { name: string; versions: SkillVersion[]; initial: Diff | null }) {
  const fromId = useId();
  const toId = useId();
  const [from, setFrom] = useState(initial?.from ?? versions[versions.length - 1]?.sha ?? '');
  const [to, setTo] = useState(initial?.to ?? versions[0]?.sha ?? '');
  const isInitial = initial !== null && initial.from === from && initial.to === to;
  const diff = useQuery({ ...skillDiffOptions(name, from, to), initialData: isInitial ? { patch: initial.patch, tooBig: initial.tooBig } : undefined });
  if (versions.length < 2) return <p className="text-sm text-stone-500">Only one version so far: nothing to compare.</p>;
  const select = (id: string, text: string, value: string, set: (sha: string) => void) => (
    <div>
      <label htmlFor={id} className="block text-xs text-stone-600">
        {text}
      </label>
      <select
        id={id}
        value={value}
        onChange={(e) => set(e.target.value)}
        className="mt-0.5 max-w-xs rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm"
      >
        {versions.map((v) => (
          <option key={v.sha} value={v.sha}>
            {label(v)}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <div>
      <fieldset aria-label="Versions to compare" className="mb-3 flex flex-wrap items-end gap-4">
        {select(fromId, 'From', from, setFrom)}
        {select(toId, 'To', to, setTo)}
      </fieldset>
      <div data-testid="skill-diff">
        {diff.isPending ? (
          <p className="text-sm text-stone-500">Loading the diff…</p>
        ) : diff.isError ? (
          <p role="alert" className="text-sm text-red-800">
            The diff could not be made: {(diff.error as Error).message}
          </p>
        ) : diff.data.tooBig ? (
          <p className="text-sm text-stone-600">This diff is too big to show here; look at it with git.</p>
        ) : (
          <DiffView patch={diff.data.patch} empty="The two versions have the same text." />
        )}
      </div>
    </div>
  );
}
