/** Suppression matching rules: case-insensitive, a domain covers its subdomains. Pure functions. */

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, '');
}

/** The domain of an address and every parent domain: `a@x.mail.example.com` -> x.mail.example.com, mail.example.com, example.com. */
export function domainCandidates(email: string): string[] {
  const at = email.lastIndexOf('@');
  if (at < 0) return [];
  const labels = normalizeDomain(email.slice(at + 1)).split('.').filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out;
}

/** Whether a suppression `{type, value}` covers `email`. */
export function suppressionCovers(suppression: { type: 'email' | 'domain'; value: string }, email: string): boolean {
  if (suppression.type === 'email') return normalizeEmail(email) === suppression.value;
  return domainCandidates(email).includes(suppression.value);
}
