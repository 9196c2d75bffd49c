import { describe, expect, it } from 'vitest';
import { dayOf, dayRange, daysOf, isIsoWeek, isoWeekOf, isoWeekRange, isoWeeksInYear, shiftIsoWeek } from '../../lib/vault/activity/week';

const iso = (ms: number) => new Date(ms).toISOString();

describe('ISO weeks', () => {
  it('names the week of a date by the year its Thursday falls in', () => {
    expect(isoWeekOf(new Date('2026-11-30T12:00:00Z'), 'UTC')).toBe('2026-W49');
    expect(isoWeekOf(new Date('2026-12-31T12:00:00Z'), 'UTC')).toBe('2026-W53');
    expect(isoWeekOf(new Date('2027-01-03T12:00:00Z'), 'UTC')).toBe('2026-W53');
    expect(isoWeekOf(new Date('2027-01-04T00:00:00Z'), 'UTC')).toBe('2027-W01');
    expect(isoWeekOf(new Date('2024-12-30T08:00:00Z'), 'UTC')).toBe('2025-W01');
    expect(isoWeekOf(new Date('2021-01-03T08:00:00Z'), 'UTC')).toBe('2020-W53');
  });

  it('takes the calendar day in the given time zone', () => {
    // Sunday 23:30 in New York is already Monday in UTC.
    const instant = new Date('2027-01-04T04:30:00Z');
    expect(isoWeekOf(instant, 'UTC')).toBe('2027-W01');
    expect(isoWeekOf(instant, 'America/New_York')).toBe('2026-W53');
    expect(dayOf(instant.getTime(), 'America/New_York')).toBe('2027-01-03');
    expect(dayOf(Date.parse('2026-11-29T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-11-30');
  });

  it('knows which years have a week 53', () => {
    expect(isoWeeksInYear(2026)).toBe(53);
    expect(isoWeeksInYear(2027)).toBe(52);
    expect(isoWeeksInYear(2020)).toBe(53);
    expect(isIsoWeek('2026-W53')).toBe(true);
    expect(isIsoWeek('2027-W53')).toBe(false);
    expect(isIsoWeek('2027-W00')).toBe(false);
    expect(isIsoWeek('2027-W1')).toBe(false);
    expect(isIsoWeek('2027W01')).toBe(false);
    expect(() => isoWeekRange('2027-W53', 'UTC')).toThrow(/not an ISO week/);
  });

  it('spans Monday 00:00 to the next Monday 00:00 across a year boundary', () => {
    const w53 = isoWeekRange('2026-W53', 'UTC');
    expect([iso(w53.since), iso(w53.until)]).toEqual(['2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z']);
    const w01 = isoWeekRange('2027-W01', 'UTC');
    expect(w01.since).toBe(w53.until);
    const berlin = isoWeekRange('2025-W01', 'Europe/Berlin');
    expect([iso(berlin.since), iso(berlin.until)]).toEqual(['2024-12-29T23:00:00.000Z', '2025-01-05T23:00:00.000Z']);
    expect(daysOf(w53, 'UTC')).toEqual(['2026-12-28', '2026-12-29', '2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02', '2027-01-03']);
  });

  it('moves by weeks across years, both ways', () => {
    expect(shiftIsoWeek('2026-W53', 1)).toBe('2027-W01');
    expect(shiftIsoWeek('2027-W01', -1)).toBe('2026-W53');
    expect(shiftIsoWeek('2027-W52', 1)).toBe('2028-W01');
    expect(shiftIsoWeek('2026-W48', -48)).toBe('2025-W52');
  });

  it('makes a week with a daylight-saving change 167 or 169 hours long, each day starting at local midnight', () => {
    // Europe/Berlin: clocks go forward on 29 March 2026 and back on 25 October 2026, both Sundays.
    const spring = isoWeekRange('2026-W13', 'Europe/Berlin');
    expect([iso(spring.since), iso(spring.until)]).toEqual(['2026-03-22T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    expect((spring.until - spring.since) / 3_600_000).toBe(167);
    const autumn = isoWeekRange('2026-W43', 'Europe/Berlin');
    expect([iso(autumn.since), iso(autumn.until)]).toEqual(['2026-10-18T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
    expect((autumn.until - autumn.since) / 3_600_000).toBe(169);
    expect(daysOf(autumn, 'Europe/Berlin')).toHaveLength(7);
    expect(daysOf(spring, 'Europe/Berlin')).toEqual(['2026-03-23', '2026-03-24', '2026-03-25', '2026-03-26', '2026-03-27', '2026-03-28', '2026-03-29']);
  });

  it('starts a day whose midnight daylight saving skips at the first moment that exists', () => {
    // America/Santiago moved its clocks from 00:00 to 01:00 on Sunday 6 September 2026.
    const { since } = dayRange('2026-09-06', '2026-09-06', 'America/Santiago');
    expect(iso(since)).toBe('2026-09-06T04:00:00.000Z'); // 01:00 local, the jump
    expect(dayOf(since, 'America/Santiago')).toBe('2026-09-06');
    expect(dayOf(since - 1000, 'America/Santiago')).toBe('2026-09-05');
  });

  it('turns a day range into whole days, in either order, and refuses what is not a date', () => {
    const r = dayRange('2026-11-30', '2026-11-24', 'UTC');
    expect([iso(r.since), iso(r.until)]).toEqual(['2026-11-24T00:00:00.000Z', '2026-12-01T00:00:00.000Z']);
    expect(() => dayRange('2026-02-30', '2026-03-01', 'UTC')).toThrow(/not a date/);
    expect(() => dayRange('yesterday', '2026-03-01', 'UTC')).toThrow(/not a date/);
    expect(() => isoWeekRange('2026-W10', 'Mars/Olympus')).toThrow(/not a time zone/);
  });
});
