import type HolidaysLibrary from 'date-holidays';

let Holidays: typeof HolidaysLibrary | undefined;

/** date-holidays, loaded when a country's holidays are first asked for rather than at start (80 ms of every start's CPU, 2026-11-29). */
function holidaysLibrary(): typeof HolidaysLibrary {
  if (!Holidays) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require('date-holidays') as { default?: typeof HolidaysLibrary } & typeof HolidaysLibrary;
    Holidays = loaded.default ?? loaded;
  }
  return Holidays;
}

const cache = new Map<string, ReadonlySet<string>>();

/**
 * Public holidays (`YYYY-MM-DD`) of a country for the given year and the next, from the
 * date-holidays library; an unknown or missing country has none.
 */
export function publicHolidays(country: string | null | undefined, year: number): ReadonlySet<string> {
  const cc = (country ?? '').toUpperCase();
  const key = `${cc}:${year}`;
  let set = cache.get(key);
  if (!set) {
    const days = new Set<string>();
    if (/^[A-Z]{2}$/.test(cc)) {
      const Library = holidaysLibrary(); // outside the try: a library that fails to load is an error, not "no holidays"
      try {
        const hd = new Library(cc);
        for (const y of [year, year + 1]) {
          for (const h of hd.getHolidays(y) || []) if (h.type === 'public') days.add(h.date.slice(0, 10));
        }
      } catch {
        // a country the library does not know: weekends only
      }
    }
    set = days;
    cache.set(key, set);
  }
  return set;
}
