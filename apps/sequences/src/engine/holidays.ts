import Holidays from 'date-holidays';

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
      try {
        const hd = new Holidays(cc);
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
