/**
 * Canonical form of a company domain so one company matches however it is written:
 * lower case, no scheme, no `www.`, no path, no trailing dots.
 */
export function normalizeDomain(raw: string): string | null {
  let value = raw.trim().toLowerCase();
  value = value.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  value = value.split(/[/?#]/, 1)[0];
  value = value.replace(/:\d+$/, '');
  value = value.replace(/\.+$/, '');
  const name = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
  // `www.` is a host of the company's domain, unless it is the whole registered name (www.com).
  const bare = value.replace(/^www\./, '');
  if (bare !== value && name.test(bare)) return bare;
  return name.test(value) ? value : null;
}
