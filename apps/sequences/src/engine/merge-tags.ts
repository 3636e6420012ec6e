import { LeadContact } from '@app/contracts';

/** Tags a step may use; `unsubscribe_url` is filled by the engine for every message. */
export const KNOWN_TAGS = ['first_name', 'last_name', 'full_name', 'title', 'company_name', 'country', 'email', 'unsubscribe_url'] as const;
export type MergeTag = (typeof KNOWN_TAGS)[number];

/** `{{ name }}` or `{{ name | fallback }}`; the fallback may be empty (`{{first_name|}}`). */
const TAG = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:\|([^}]*))?\}\}/g;

export interface TagUse {
  name: string;
  fallback: string | undefined;
}

export function tagsIn(template: string): TagUse[] {
  return [...template.matchAll(TAG)].map((m) => ({ name: m[1], fallback: m[2] === undefined ? undefined : m[2].trim() }));
}

export function unknownTags(template: string): string[] {
  return [...new Set(tagsIn(template).map((t) => t.name).filter((n) => !(KNOWN_TAGS as readonly string[]).includes(n)))];
}

export type RenderOutcome = { ok: true; text: string } | { ok: false; missing: string[] };

/**
 * Replaces every tag with the lead's value (trimmed), else its fallback. A tag with neither holds
 * the lead back: the outcome names the missing tags instead of sending a broken sentence.
 */
export function renderTemplate(template: string, values: Partial<Record<string, string | null | undefined>>): RenderOutcome {
  const missing: string[] = [];
  const text = template.replace(TAG, (_all, name: string, fallback: string | undefined) => {
    const value = values[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (fallback !== undefined) return fallback.trim();
    if (!missing.includes(name)) missing.push(name);
    return '';
  });
  return missing.length > 0 ? { ok: false, missing } : { ok: true, text };
}

export function leadValues(lead: LeadContact, unsubscribeUrl: string): Record<MergeTag, string | null> {
  return {
    first_name: lead.first_name,
    last_name: lead.last_name,
    full_name: lead.full_name,
    title: lead.title,
    company_name: lead.company_name,
    country: lead.country,
    email: lead.email,
    unsubscribe_url: unsubscribeUrl,
  };
}
