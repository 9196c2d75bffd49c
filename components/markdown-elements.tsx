import type { Components, ExtraProps } from 'react-markdown';
import type { ComponentProps, JSX } from 'react';

type Tone = { box: string; title: string };

const TONES = {
  blue: { box: 'border-sky-500 bg-sky-50 dark:bg-sky-950/40', title: 'text-sky-700 dark:text-sky-300' },
  cyan: { box: 'border-cyan-500 bg-cyan-50 dark:bg-cyan-950/40', title: 'text-cyan-700 dark:text-cyan-300' },
  teal: { box: 'border-teal-500 bg-teal-50 dark:bg-teal-950/40', title: 'text-teal-700 dark:text-teal-300' },
  green: { box: 'border-green-500 bg-green-50 dark:bg-green-950/40', title: 'text-green-700 dark:text-green-300' },
  yellow: { box: 'border-yellow-500 bg-yellow-50 dark:bg-yellow-950/40', title: 'text-yellow-800 dark:text-yellow-300' },
  orange: { box: 'border-orange-500 bg-orange-50 dark:bg-orange-950/40', title: 'text-orange-700 dark:text-orange-300' },
  red: { box: 'border-red-500 bg-red-50 dark:bg-red-950/40', title: 'text-red-700 dark:text-red-300' },
  purple: { box: 'border-violet-500 bg-violet-50 dark:bg-violet-950/40', title: 'text-violet-700 dark:text-violet-300' },
  gray: { box: 'border-zinc-400 bg-zinc-50 dark:bg-zinc-900', title: 'text-zinc-700 dark:text-zinc-300' },
} satisfies Record<string, Tone>;

/** Obsidian's callout types and aliases; unknown types look like `note`. */
// biome-ignore format: one line per colour reads as the table it is
const TONE_BY_TYPE: Record<string, keyof typeof TONES> = {
  note: 'blue', info: 'blue', todo: 'blue',
  abstract: 'cyan', summary: 'cyan', tldr: 'cyan',
  tip: 'teal', hint: 'teal', important: 'teal',
  success: 'green', check: 'green', done: 'green',
  question: 'yellow', help: 'yellow', faq: 'yellow',
  warning: 'orange', caution: 'orange', attention: 'orange',
  failure: 'red', fail: 'red', missing: 'red', danger: 'red', error: 'red', bug: 'red',
  example: 'purple',
  quote: 'gray', cite: 'gray',
};

function toneOf(type: unknown): Tone {
  return TONES[(typeof type === 'string' && TONE_BY_TYPE[type]) || 'blue'];
}

function cx(...classes: (string | false | null | undefined)[]): string {
  return classes.filter(Boolean).join(' ');
}

function hasClass(className: string | undefined, name: string): boolean {
  return (className ?? '').split(/\s+/).includes(name);
}

type Props<Tag extends keyof JSX.IntrinsicElements> = ComponentProps<Tag> & ExtraProps;

const BOX_CLASSES: Record<string, string> = {
  'callout-content': 'mt-1 [&>:first-child]:mt-1 [&>:last-child]:mb-0',
  embed: 'my-4 overflow-hidden rounded-md border border-zinc-200 dark:border-zinc-700',
  'embed-title': 'border-b border-zinc-200 bg-zinc-50 px-3 py-1.5 text-sm font-medium dark:border-zinc-700 dark:bg-zinc-900',
  'embed-content': 'px-4 py-1',
};

function Div({ node, className, ...props }: Props<'div'>) {
  const tone = toneOf(node?.properties?.dataCallout);
  const kind = (className ?? '').split(/\s+/).find((name) => name === 'callout' || name === 'callout-title' || name in BOX_CLASSES);
  const style =
    kind === 'callout'
      ? cx('my-4 rounded-md border-l-4 px-4 py-3', tone.box)
      : kind === 'callout-title'
        ? cx('flex items-center gap-2 font-semibold', tone.title)
        : kind && BOX_CLASSES[kind];
  return <div className={cx(className, style)} {...props} />;
}

function Summary({ node, className, ...props }: Props<'summary'>) {
  const tone = toneOf(node?.properties?.dataCallout);
  const style = hasClass(className, 'callout-title') && cx('flex cursor-pointer items-center gap-2 font-semibold', tone.title);
  return <summary className={cx(className, style)} {...props} />;
}

function Span({ node: _node, className, ...props }: Props<'span'>) {
  const style = hasClass(className, 'broken-link')
    ? 'cursor-help text-red-700 underline decoration-red-400 decoration-dotted underline-offset-2 dark:text-red-400'
    : hasClass(className, 'blocked-link')
      ? 'text-zinc-500 line-through decoration-zinc-400'
      : undefined;
  return <span className={cx(className, style)} {...props} />;
}

function List({ node: _node, className, ...props }: Props<'ul'>) {
  const tasks = hasClass(className, 'contains-task-list');
  return <ul className={cx(className, 'my-3 space-y-1', tasks ? 'list-none pl-1' : 'list-disc pl-6')} {...props} />;
}

function ListItem({ node: _node, className, ...props }: Props<'li'>) {
  const task = hasClass(className, 'task-list-item');
  return <li className={cx(className, 'leading-7', task && '[&>input]:mr-2')} {...props} />;
}

const CLASSES = {
  h1: 'mt-8 mb-4 scroll-mt-20 text-3xl font-bold tracking-tight first:mt-0',
  h2: 'mt-8 mb-3 scroll-mt-20 border-b border-zinc-200 pb-1 text-2xl font-semibold tracking-tight first:mt-0 dark:border-zinc-700',
  h3: 'mt-6 mb-2 scroll-mt-20 text-xl font-semibold',
  h4: 'mt-5 mb-2 scroll-mt-20 text-lg font-semibold',
  h5: 'mt-4 mb-1 scroll-mt-20 text-base font-semibold',
  h6: 'mt-4 mb-1 scroll-mt-20 text-sm font-semibold uppercase tracking-wide text-zinc-600 dark:text-zinc-400',
  p: 'my-3 leading-7',
  a: 'text-sky-700 underline underline-offset-2 hover:text-sky-900 dark:text-sky-400 dark:hover:text-sky-300',
  ol: 'my-3 list-decimal space-y-1 pl-6',
  blockquote: 'my-4 border-l-4 border-zinc-300 pl-4 text-zinc-700 dark:border-zinc-600 dark:text-zinc-300',
  pre: 'my-4 overflow-x-auto rounded-md bg-zinc-900 p-4 text-sm leading-6 text-zinc-100 ' + '[&>code]:bg-transparent [&>code]:p-0 [&>code]:text-inherit',
  code: 'rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.9em] dark:bg-zinc-800',
  table: 'w-full border-collapse text-sm',
  th: 'border border-zinc-300 bg-zinc-100 px-3 py-1.5 text-left font-semibold dark:border-zinc-600 dark:bg-zinc-800',
  td: 'border border-zinc-300 px-3 py-1.5 align-top dark:border-zinc-600',
  hr: 'my-6 border-zinc-200 dark:border-zinc-700',
  img: 'my-2 inline-block h-auto max-w-full rounded',
  del: 'text-zinc-500',
  details: '[&[open]>summary]:mb-1',
  section: 'mt-8 border-t border-zinc-200 pt-4 text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400',
};

/**
 * Tailwind styling for the elements react-markdown renders. The semantic classes the plugins set (`callout`,
 * `broken-link`, ...) are kept next to the utilities, so the output stays addressable by tests and CSS.
 */
export const markdownElements: Components = {
  h1: ({ node: _node, className, ...props }) => <h1 className={cx(className, CLASSES.h1)} {...props} />,
  // The footnotes label is an `sr-only` h2: visually hidden, without heading styles.
  h2: ({ node: _node, className, ...props }) => <h2 className={cx(className, hasClass(className, 'sr-only') ? 'sr-only' : CLASSES.h2)} {...props} />,
  h3: ({ node: _node, className, ...props }) => <h3 className={cx(className, CLASSES.h3)} {...props} />,
  h4: ({ node: _node, className, ...props }) => <h4 className={cx(className, CLASSES.h4)} {...props} />,
  h5: ({ node: _node, className, ...props }) => <h5 className={cx(className, CLASSES.h5)} {...props} />,
  h6: ({ node: _node, className, ...props }) => <h6 className={cx(className, CLASSES.h6)} {...props} />,
  p: ({ node: _node, className, ...props }) => <p className={cx(className, CLASSES.p)} {...props} />,
  a: ({ node: _node, className, ...props }) => <a className={cx(className, CLASSES.a)} {...props} />,
  ul: List,
  ol: ({ node: _node, className, ...props }) => <ol className={cx(className, CLASSES.ol)} {...props} />,
  li: ListItem,
  blockquote: ({ node: _node, className, ...props }) => <blockquote className={cx(className, CLASSES.blockquote)} {...props} />,
  pre: ({ node: _node, className, ...props }) => <pre className={cx(className, CLASSES.pre)} {...props} />,
  code: ({ node: _node, className, ...props }) => <code className={cx(className, CLASSES.code)} {...props} />,
  table: ({ node: _node, className, ...props }) => (
    <div className="my-4 overflow-x-auto">
      <table className={cx(className, CLASSES.table)} {...props} />
    </div>
  ),
  th: ({ node: _node, className, ...props }) => <th className={cx(className, CLASSES.th)} {...props} />,
  td: ({ node: _node, className, ...props }) => <td className={cx(className, CLASSES.td)} {...props} />,
  hr: ({ node: _node, className, ...props }) => <hr className={cx(className, CLASSES.hr)} {...props} />,
  img: ({ node: _node, className, alt, ...props }) => (
    // biome-ignore lint/performance/noImgElement: vault images come from /files with unknown sizes; next/image needs them
    <img className={cx(className, CLASSES.img)} alt={alt ?? ''} loading="lazy" {...props} />
  ),
  del: ({ node: _node, className, ...props }) => <del className={cx(className, CLASSES.del)} {...props} />,
  details: ({ node: _node, className, ...props }) => <details className={cx(className, CLASSES.details)} {...props} />,
  summary: Summary,
  section: ({ node: _node, className, ...props }) => <section className={cx(className, CLASSES.section)} {...props} />,
  div: Div,
  span: Span,
};
