import type { ProtocolRule, SessionOutcomeView } from '@/lib/vault';

const OUTCOME_STYLE: Record<SessionOutcomeView, string> = {
  done: 'bg-emerald-100 text-emerald-900',
  partial: 'bg-sky-100 text-sky-900',
  abandoned: 'bg-red-100 text-red-900',
  open: 'bg-amber-100 text-amber-900',
};

const OUTCOME_LABEL: Record<SessionOutcomeView, string> = {
  done: 'done',
  partial: 'partial',
  abandoned: 'abandoned',
  open: 'open (live)',
};

/** A session's outcome; an abandoned session is marked so it stands out in a list. */
export function OutcomeBadge({ outcome }: { outcome: SessionOutcomeView }) {
  return (
    <span data-testid="session-outcome" data-outcome={outcome} className={`whitespace-nowrap rounded px-1.5 py-0.5 text-xs ${OUTCOME_STYLE[outcome]}`}>
      {outcome === 'abandoned' ? '⚠ ' : outcome === 'open' ? '● ' : ''}
      {OUTCOME_LABEL[outcome]}
    </span>
  );
}

/** The protocol check in one word: passed, failed, or pending while the session is open. */
export function ProtocolBadge({ ok }: { ok: boolean | null }) {
  if (ok === null) return <span className="text-xs text-stone-500">pending</span>;
  return ok ? (
    <span data-testid="protocol-badge" data-ok="true" className="text-xs text-emerald-800">
      ✓ followed
    </span>
  ) : (
    <span data-testid="protocol-badge" data-ok="false" className="text-xs font-medium text-red-800">
      ✗ failed
    </span>
  );
}

/** What each rule of the check asks, in the protocol's words. */
export const RULE_LABEL: Record<ProtocolRule['id'], string> = {
  'read-before-write': 'Searched or read before its first write',
  ended: 'Called end_session',
  'edits-logged': 'Every edit is one commit with its changelog line',
  'decisions-recorded': 'Decisions went through record_decision',
};

/** `2026-11-30 14:02` from an ISO time with offset, in the time zone it was written in. */
export function sessionTime(iso: string | null): string {
  if (!iso) return '';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}

/** A duration as people say it: `45 s`, `12 min`, `2 h 05 min`. */
export function duration(ms: number | null): string {
  if (ms === null) return '';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}
