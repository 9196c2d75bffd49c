import { randomBytes } from 'node:crypto';
import { trimEndOf, trimStartOf } from './text';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Where random identifiers come from; tests and the demo pass a seeded one. */
export interface IdSource {
  /** `length` characters of lowercase base32. */
  base32(length: number): string;
}

/** The clock the vault reads; tests and the demo pass a fixed or stepping one. */
export type Clock = () => Date;

/** The real clock: the only place lib/vault asks the system for the time. */
export const systemClock: Clock = () => new Date();

/** Random base32 from the operating system's cryptographic source. */
export const cryptoIds: IdSource = {
  base32(length) {
    const bytes = randomBytes(length);
    let out = '';
    for (let i = 0; i < length; i += 1) out += BASE32[bytes[i] & 31];
    return out;
  },
};

/**
 * mulberry32: a small seeded generator of numbers in [0, 1); the same seed gives the same sequence
 * on every machine (the demo vault's ids, the evaluation's bootstrap and filler notes, the benchmarks).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A deterministic id source for tests and the demo vault (mulberry32). */
export function seededIds(seed: number): IdSource {
  const next = mulberry32(seed);
  return {
    base32(length) {
      let out = '';
      for (let i = 0; i < length; i += 1) out += BASE32[Math.floor(next() * 32)];
      return out;
    },
  };
}

/** A new edit id: `e` and 12 characters of base32. */
export function newEditId(ids: IdSource): string {
  return `e${ids.base32(12)}`;
}

/** Lowercase `[a-z0-9-]` slug of a name ('Claude Code' → 'claude-code'). */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 60);
  return trimEndOf(trimStartOf(slug, '-'), '-');
}

/** The shape of a session id (VAULT-FORMAT: `YYYYMMDD-HHMMSS-<agent slug>-<4 base32>`). */
export const SESSION_ID_PATTERN = /^\d{8}-\d{6}-[a-z0-9](?:[a-z0-9-]{0,62})-[a-z2-7]{4}$/;

/** True when `value` has the shape of a session id. */
export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID_PATTERN.test(value);
}

/** `YYYYMMDD-HHMMSS` in the clock's local time: how session ids and dream run ids start. */
export function idStamp(now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
}

/** A session id: `YYYYMMDD-HHMMSS-<agent slug>-<4 base32>` in the clock's local time. */
export function newSessionId(now: Date, agentSlug: string, ids: IdSource): string {
  return `${idStamp(now)}-${agentSlug}-${ids.base32(4)}`;
}

/** `YYYY-MM-DD` in local time. */
export function formatDate(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}`;
}

/** ISO 8601 with the local offset, to the second: `2026-11-30T14:02:11+01:00`. */
export function formatTime(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return `${formatDate(date)}T${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}${sign}${p(Math.floor(abs / 60))}:${p(abs % 60)}`;
}

/** `YYYY-MM-DD HH:MM` in local time, as changelog lines show it. */
export function formatMinute(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${formatDate(date)} ${p(date.getHours())}:${p(date.getMinutes())}`;
}
