/** ISO 8601 date-times as the API takes them (dto/date-time.ts's `@IsDateTime` checks with it; services parse with it). */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/i;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MIN = Date.parse('0001-01-01T00:00:00Z');
const MAX = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The instant an ISO 8601 date-time with a time zone names, or null when the text is not one
 * or names no real instant (month 13, 30 February, 24:00, offset +25:00, year 0). Fractions
 * beyond milliseconds are cut. Only values that pass here ever reach SQL, so a malformed
 * date-time is a 400 of the gateway, never a database error.
 */
export function parseDateTime(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const second = m[6] ? Number(m[6]) : 0;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1] + (month === 2 && isLeap(year) ? 1 : 0)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (m[8].toUpperCase() !== 'Z') {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  const time = date.getTime() - offsetMinutes * 60_000;
  if (year < 1 || time < MIN || time > MAX) return null;
  return new Date(time);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
