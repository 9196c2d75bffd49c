import Link from 'next/link';
import { notFound } from 'next/navigation';
import { MarkdownView } from '@/components/markdown-view';
import { PageHeader } from '@/components/page-header';
import { SkillDiffPicker } from '@/components/skill-diff-picker';
import { SkillVersions } from '@/components/skill-versions';
import { noteHref } from '@/lib/markdown/hrefs';
import { fetchSkill } from '@/lib/server/data-skills';
import { RENDER_LIMIT } from '@/lib/server/data';

function text(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

export default async function SkillPage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  const skill = await fetchSkill(name);
  if (!skill) notFound();
  const { note, versions } = skill;
  const fm = note.frontmatter;
  const pickable = versions.filter((v) => v.blob !== null && !v.sameText);
  return (
    <article>
      <p className="text-xs text-stone-500">
        <Link href="/skills" className="text-blue-800 underline">
          Skills
        </Link>{' '}
        / <Link href={noteHref(skill.path)}>{skill.path}</Link>
      </p>
      <PageHeader title={text(fm.name) ?? skill.name} description={text(fm.trigger) ? `Use it ${text(fm.trigger)}` : 'This skill has no trigger.'} />
      <dl className="mb-6 grid max-w-2xl grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-stone-500">Version</dt>
        <dd data-testid="skill-current-version">{text(fm.version) ?? '?'}</dd>
        <dt className="text-stone-500">Status</dt>
        <dd>{skill.archived ? 'archived' : (text(fm.status) ?? 'active')}</dd>
        <dt className="text-stone-500">Last updated</dt>
        <dd>{text(fm.last_updated) ?? ''}</dd>
      </dl>
      {note.problem ? (
        <p role="alert" className="mb-4 rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          Lucid cannot read this skill&apos;s front matter ({note.problemMessage}); it cannot be molted or restored until a person fixes it.
        </p>
      ) : null}
      <div className="grid gap-8 xl:grid-cols-2">
        <section aria-labelledby="skill-text">
          <h2 id="skill-text" className="mb-2 text-lg font-semibold">
            Current text
          </h2>
          {note.text === null ? (
            <p className="text-sm text-stone-600">This file is not text Lucid can show.</p>
          ) : note.body.length > RENDER_LIMIT ? (
            <pre className="max-h-[70vh] overflow-auto whitespace-pre-wrap rounded bg-white p-4 text-sm">{note.body.slice(0, RENDER_LIMIT)}</pre>
          ) : (
            <div className="rounded-md border border-stone-200 bg-white p-4" data-testid="skill-text">
              <MarkdownView markdown={note.body} notePath={note.path} resolve={(target, kind, from) => skill.resolve(target, from, kind)} />
            </div>
          )}
        </section>
        <section aria-labelledby="skill-history">
          <h2 id="skill-history" className="mb-2 text-lg font-semibold">
            Versions
          </h2>
          <SkillVersions
            name={skill.name}
            versions={versions}
            truncated={skill.truncated}
            expectedHash={note.hash}
            archived={skill.archived || note.problem !== null}
            person={skill.person}
          />
        </section>
      </div>
      <section aria-labelledby="skill-compare" className="mt-8">
        <h2 id="skill-compare" className="mb-2 text-lg font-semibold">
          Compare versions
        </h2>
        <SkillDiffPicker key={versions[0]?.sha ?? 'none'} name={skill.name} versions={pickable} initial={skill.diff} />
      </section>
    </article>
  );
}
