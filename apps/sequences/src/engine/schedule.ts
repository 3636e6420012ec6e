/** Calendar arithmetic of the engine: waits, business days and sending windows. Pure functions. */

const DAY_MS = 24 * 60 * 60 * 1000;

/** Weekday (0 Sunday … 6 Saturday) and wall-clock parts of `at` in `timeZone`. */
export function zonedParts(at: Date, timeZone: string): { year: number; month: number; day: number; weekday: number; minutes: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', weekday: 'short',
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  return { year: Number(get('year')), month: Number(get('month')), day: Number(get('day')), weekday, minutes: Number(get('hour')) * 60 + Number(get('minute')) };
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** `YYYY-MM-DD` of `at` in `timeZone`. */
export function localDate(at: Date, timeZone: string): string {
  const p = zonedParts(at, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/**
 * `days` after `from`: calendar days, or business days (Saturdays, Sundays and the given
 * holidays, `YYYY-MM-DD` in `timeZone`, are skipped) when `businessDaysOnly`.
 */
export function addWait(from: Date, days: number, businessDaysOnly: boolean, timeZone = 'UTC', holidays: ReadonlySet<string> = new Set()): Date {
  if (!businessDaysOnly) return new Date(from.getTime() + days * DAY_MS);
  let at = from;
  let left = days;
  while (left > 0) {
    at = new Date(at.getTime() + DAY_MS);
    const { weekday } = zonedParts(at, timeZone);
    if (weekday !== 0 && weekday !== 6 && !holidays.has(localDate(at, timeZone))) left--;
  }
  return at;
}

/** Minutes since midnight of `HH:MM`. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

/**
 * The first instant at or after `at` inside the daily window `[start, end)` of `timeZone`
 * (minute precision). A window whose end is before its start spans midnight.
 */
export function nextWindowStart(at: Date, timeZone: string, start: string, end: string): Date {
  const s = minutesOf(start);
  const e = minutesOf(end);
  if (s === e) return at; // a window of the whole day
  const inside = (minutes: number) => (s < e ? minutes >= s && minutes < e : minutes >= s || minutes < e);
  const { minutes } = zonedParts(at, timeZone);
  if (inside(minutes)) return at;
  // step minute by minute would be slow; step to the start in whole minutes, then correct for DST shifts
  let wait = (s - minutes + 24 * 60) % (24 * 60);
  let candidate = new Date(Math.floor(at.getTime() / 60_000) * 60_000 + wait * 60_000);
  for (let i = 0; i < 3 && !inside(zonedParts(candidate, timeZone).minutes); i++) {
    wait = (s - zonedParts(candidate, timeZone).minutes + 24 * 60) % (24 * 60);
    candidate = new Date(candidate.getTime() + wait * 60_000);
  }
  return candidate;
}

/** Whether `HH:MM-HH:MM` is a well-formed window. */
export function parseWindow(window: string): { start: string; end: string } | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(window);
  return m ? { start: `${m[1]}:${m[2]}`, end: `${m[3]}:${m[4]}` } : null;
}
