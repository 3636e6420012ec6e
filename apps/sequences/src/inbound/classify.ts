/** What an inbound message is, from its headers and text. Pure functions. */

const OOO_SUBJECTS = [
  /out of (the )?office/i, /\bautomatic reply\b/i, /\bauto[- ]?reply\b/i, /\bautoreply\b/i, /\bvacation\b/i, /\bon leave\b/i,
  /\babwesenheit/i, /\bautomatische antwort\b/i, /\bnicht im büro\b/i, // de
  /\bréponse automatique\b/i, /\babsence\b/i, /\babsent\b/i, // fr
  /\brespuesta automática\b/i, /\bfuera de la oficina\b/i, // es
  /\brisposta automatica\b/i, /\bfuori sede\b/i, /\bassente\b/i, // it
  /\bafwezig\b/i, /\bautomatisch antwoord\b/i, // nl
  /\bfrånvaro\b/i, /\bautomatiskt svar\b/i, /\bfravær\b/i, /\bautomatisk svar\b/i, // sv, no, da
  /\bresposta automática\b/i, /\bausente\b/i, // pt
];

export type Headers = Map<string, unknown> | Record<string, unknown>;

function header(headers: Headers, name: string): string {
  const value = headers instanceof Map ? headers.get(name) : headers[name];
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && 'value' in (value as object)) return String((value as { value: unknown }).value);
  return String(value);
}

/** RFC 3834 Auto-Submitted, the X-Autoreply/X-Autorespond family, Precedence, and common subjects. */
export function isAutoReply(headers: Headers, subject: string): boolean {
  const autoSubmitted = header(headers, 'auto-submitted').trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return true;
  if (header(headers, 'x-autoreply') || header(headers, 'x-autorespond') || header(headers, 'x-autoresponder')) return true;
  const precedence = header(headers, 'precedence').trim().toLowerCase();
  if (['auto_reply', 'auto-reply', 'bulk', 'junk'].includes(precedence)) return true;
  if (header(headers, 'x-ms-exchange-inbox-rules-loop') || header(headers, 'x-auto-response-suppress').toLowerCase().includes('oof')) {
    if (OOO_SUBJECTS.some((p) => p.test(subject))) return true;
  }
  return OOO_SUBJECTS.some((p) => p.test(subject));
}

export interface DeliveryStatus {
  status: string;
  recipient: string | null;
  diagnostic: string | null;
  hard: boolean;
}

/** The per-recipient fields of an RFC 3464 message/delivery-status body. */
export function parseDeliveryStatus(text: string): DeliveryStatus | null {
  const unfolded = text.replace(/\r?\n[ \t]+/g, ' ');
  const status = /^Status:\s*([245])\.(\d{1,3})\.(\d{1,3})/im.exec(unfolded);
  if (!status) return null;
  const recipient = /^(?:Final|Original)-Recipient:\s*(?:rfc822;)?\s*<?([^>\s]+)>?/im.exec(unfolded);
  const diagnostic = /^Diagnostic-Code:\s*(.+)$/im.exec(unfolded);
  return {
    status: `${status[1]}.${status[2]}.${status[3]}`,
    recipient: recipient ? recipient[1].toLowerCase() : null,
    diagnostic: diagnostic ? diagnostic[1].trim() : null,
    hard: status[1] === '5',
  };
}

/** Message-IDs named by In-Reply-To and References, angle brackets kept. */
export function referencedIds(inReplyTo: string | undefined, references: string | string[] | undefined): string[] {
  const all = [inReplyTo ?? '', ...(Array.isArray(references) ? references : [references ?? ''])].join(' ');
  return [...new Set(all.match(/<[^<>\s]+>/g) ?? [])];
}
