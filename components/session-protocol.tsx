import { RULE_LABEL } from '@/components/session-outcome';
import type { ProtocolCheck } from '@/lib/vault';

/** The protocol check of a session, each rule with what was observed. */
export function SessionProtocol({ check }: { check: ProtocolCheck }) {
  return (
    <section aria-labelledby="protocol" className="mt-6" data-testid="protocol-check" data-ok={String(check.ok)}>
      <h2 id="protocol" className="mb-1 text-lg font-semibold">
        Protocol check{' '}
        <span className={`text-sm font-normal ${check.open ? 'text-stone-500' : check.ok ? 'text-emerald-800' : 'text-red-800'}`}>
          {check.open ? '(still open)' : check.ok ? '(followed)' : '(not followed)'}
        </span>
      </h2>
      <p className="mb-2 text-xs text-stone-500">
        Computed from what Lucid observed (the session note's times) and from git, never from what the session says about itself. Each rule is one that
        AGENTS.md and the MCP instructions tell agents.
      </p>
      <ul className="space-y-1.5 text-sm">
        {check.rules.map((rule) => (
          <li key={rule.id} data-testid="protocol-rule" data-rule={rule.id} data-ok={String(rule.ok)} className="flex gap-2">
            <span aria-hidden="true" className={rule.ok ? 'text-emerald-700' : 'text-red-700'}>
              {rule.ok ? '✓' : '✗'}
            </span>
            <div>
              <span className="font-medium">{RULE_LABEL[rule.id]}</span>
              <span className="sr-only">{rule.ok ? ': passed' : ': failed'}</span>
              <p className="text-stone-600">{rule.detail}</p>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
