import { formatDate, type Op, type Vault } from '../vault';
import type { DemoHighlights } from './types';

/** One commit of the history, as the weekly reports count it. */
export interface DemoEvent {
  at: number;
  actor: string;
  op: Op;
  path: string;
  reason: string;
  session?: string;
  /** The inbox item an accept or a reject took out of the inbox. */
  settled?: string;
}

/** A session whose note is written, as the weekly reports list it. */
export interface EndedSession {
  id: string;
  agent: string;
  task: string;
  outcome: 'done' | 'partial' | 'abandoned';
  ended: number;
  path: string;
}

/** The actors who work on the second machine, at the second person's clone (see {@link DemoRun.vaultFor}). */
const ELSEWHERE = new Set(['agent:research-bot', 'human:Grace Hopper']);

/** Seconds added to each pause, so timestamps look like people's and agents' real pace. */
const JITTER = [17, 43, 8, 31, 52, 4, 26, 39, 12, 47, 21, 35];
/** Minutes between consecutive edits of one actor. */
const GAPS = [3, 6, 4, 9, 5, 2, 7, 4, 11, 3];

/**
 * The demo's clock and its record of what happened. The clock is the one the vault was opened
 * with: it only moves when the script moves it, so the same anchor always gives the same
 * timestamps; `at` jumps to a scheduled moment and every commit moves it a few minutes on.
 */
export class DemoRun {
  readonly events: DemoEvent[] = [];
  readonly ended: EndedSession[] = [];
  /** The current version of each skill, as the last molt returned it. */
  readonly versions = new Map<string, number>();
  readonly highlights: Partial<DemoHighlights> = {};
  private now: number;
  private tick = 0;
  vault!: Vault;
  /** The same vault as the second person opens it on their own machine (their git name, their `Lucid-Machine`). */
  elsewhere?: Vault;

  /** The vault `actor` works in: the research agent and Grace on the second machine, everyone else on the first. */
  vaultFor(actor: string): Vault {
    return ELSEWHERE.has(actor) && this.elsewhere ? this.elsewhere : this.vault;
  }

  constructor(readonly day0: Date) {
    this.now = day0.getTime();
  }

  readonly clock = (): Date => new Date(this.now);

  time(): Date {
    return new Date(this.now);
  }

  /** Local time on day `day` of the history (day 0 is the first). */
  dayAt(day: number, hour = 0, minute = 0): Date {
    return new Date(this.day0.getFullYear(), this.day0.getMonth(), this.day0.getDate() + day, hour, minute, 0);
  }

  date(day: number): string {
    return formatDate(this.dayAt(day));
  }

  /** Jumps to a scheduled moment; the script's moments must come in order. */
  at(day: number, hour: number, minute: number): void {
    const target = this.dayAt(day, hour, minute).getTime() + JITTER[this.tick % JITTER.length] * 1000;
    if (target <= this.now) throw new Error(`demo script: day ${day} ${hour}:${minute} comes before ${new Date(this.now).toISOString()}`);
    this.now = target;
  }

  /** Moves the clock forward by about `minutes`. */
  pause(minutes: number): void {
    this.tick += 1;
    this.now += minutes * 60_000 + JITTER[this.tick % JITTER.length] * 1000;
  }

  /** Moves the clock forward by exactly `seconds` (an agent's reads and searches between commits). */
  step(seconds: number): void {
    this.now += seconds * 1000;
  }

  /** Records a commit made at the current time, then lets a few minutes pass. */
  committed(event: Omit<DemoEvent, 'at'>): void {
    this.events.push({ at: this.now, ...event });
    this.pause(GAPS[this.tick % GAPS.length]);
  }
}

/** Replaces `from` in `text`, which must hold it: a script whose texts drifted apart fails loudly. */
export function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`demo script: "${from.slice(0, 40)}" not found`);
  return text.replace(from, to);
}
