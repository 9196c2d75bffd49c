// The generated vault's vocabulary (scripts/bench/generate.ts): words, names, and the questions asked of it.
// generate.ts hashes this file with its own for the cache key, so a changed word makes a new vault.
import { mulberry32 } from '../../lib/vault/index';

/** The same numbers on every machine (the lib's mulberry32). */
export const seeded = mulberry32;

export const WORDS = `migration postgres latency budget cache index schema session agent skill decision project review
deploy rollback incident metric dashboard search memory vault note link backlink history commit revert inbox
proposal person team roadmap quarter customer billing invoice retry queue worker cron backup restore ledger
webhook payment refund subscription tenant region failover replica shard partition vacuum timeout throttle
rate limit alert pager oncall runbook outage postmortem capacity forecast cost storage bucket object upload
download stream batch pipeline etl warehouse report export import parser tokenizer embedding ranking recall
precision evaluation benchmark fixture test flaky build release version changelog branch merge conflict
onboarding hiring interview contract vendor license security audit secret token rotation encryption key
certificate domain proxy gateway load balancer kubernetes container image registry terraform module network
firewall subnet vpn latency jitter throughput memory leak profile trace span log retention privacy consent
design mockup accessibility mobile desktop browser offline sync conflict merge editor markdown preview
analytics funnel churn pricing discount trial plan seat quota usage meter alerting slo sli error budget`
  .split(/\s+/)
  .filter(Boolean);
export const FILLER =
  'the a we it this that for with and but so then when because after before about into over under our their its was is are were be will can should would might'.split(
    ' ',
  );
export const FIRST =
  'Ana Ben Carla Dev Elif Farid Greta Hugo Ines Jonas Kemal Lena Mateo Nora Omar Priya Quinn Rosa Sami Tara Umar Vera Wren Xia Yusuf Zoe Alma Bruno Chen Dana'.split(
    ' ',
  );
export const LAST = 'Lima Okafor Novak Berg Silva Tanaka Moreau Haddad Kowalski Rossi Jensen Park Nguyen Costa Meyer Ibrahim Larsen Petrov Santos Walsh'.split(
  ' ',
);
export const SYLLABLES =
  'at las bor eal is cor vin del ta nim bus or ion lyra kes trel hal cy on mer idi an pol aris qua sar rho dan sol ace tur bine vel ox'.split(' ');
export const HUB_NAMES = ['Platform Roadmap', 'Engineering Handbook', 'Incident Process', 'Billing Overview', 'Data Platform'];
const STOP = new Set([
  ...FILLER,
  'why',
  'did',
  'do',
  'does',
  'how',
  'what',
  'who',
  'which',
  'where',
  'us',
  'to',
  'of',
  'on',
  'in',
  'at',
  'by',
  'from',
  'us?',
  'owns',
  'has',
]);

/** The question's terms for ripgrep: its words less the stop words. */
export function questionTerms(question: string): string[] {
  const words = question
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length >= 3 && !STOP.has(w));
  return [...new Set(words)];
}

/** The benchmark's search questions, drawn from the vault's words, projects and people. */
export function makeQuestions(rand: () => number, projects: string[], people: string[]): string[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const templates = [
    () => `why did we move the ${pick(WORDS)} to ${pick(WORDS)}`,
    () => `who owns ${pick(projects)}`,
    () => `what is our ${pick(WORDS)} policy for ${pick(WORDS)}`,
    () => `how do we ${pick(['fix', 'roll back', 'test', 'deploy', 'monitor'])} the ${pick(WORDS)} ${pick(WORDS)}`,
    () => `what did ${pick(people).split(' ')[0]} decide about ${pick(WORDS)}`,
    () => `${pick(WORDS)} ${pick(WORDS)} incident`,
    () => `when did the ${pick(WORDS)} ${pick(WORDS)} change`,
    () => `status of ${pick(projects)} ${pick(WORDS)}`,
  ];
  return Array.from({ length: 200 }, () => pick(templates)());
}
