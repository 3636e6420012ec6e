/**
 * Whether a reply asks us to stop emailing (the spec's "unsubscribe ... by reply"). Pure functions.
 *
 * The rule (docs/decisions.md, "Unsubscribe by reply"): only the reply's own words count (quoted
 * lines, the "On … wrote:" line, an Outlook header block or original-message marker and what
 * follows it, and the signature are dropped, so our own footer's "Unsubscribe" link never
 * counts). A phrase of the table below asks to stop, unless a negation stands before it in the
 * same clause ("please don't remove me", "bitte nicht abmelden", "no quiero darme de baja").
 * A reply whose whole text is "stop" (or "remove", "unsubscribe", "stopp", "baja") asks too; so
 * does a subject the replier wrote (not our subject with "Re:").
 */

/** Phrases that ask to stop, already lower-cased and with typographic apostrophes made plain. */
const REQUESTS: RegExp[] = [
  // en
  /\bunsubscrib(e|ed|ing)\b/, /\bopt(ed)?[- ]?(me )?out\b/,
  /\b(remove|delete|erase)( me| my (e-?mail|address|email address|details|contact details|data)| this (e-?mail|address))\b/,
  /\b(take|get|cross) me off\b/,
  /\bstop (e-?mailing|mailing|contacting|messaging|writing|sending)\b/,
  // "don't email me, call me" is not one: the request ends the sentence or says again/anymore
  /\b(do not|don't|dont) (e-?mail|contact|message|write to) (me|us)( again| anymore| any more| any further|(?=\s*($|[.!\n])))/,
  /\bno (more|further) (e-?mails|mails|messages)\b/,
  /\bnot interested in (receiving )?(any )?(more|further|these|your|future) (e-?mails|mails|messages)\b/,
  /\b(do not|don't|dont) (want|wish) to (receive|get) (any )?(more |further |these |your )?(e-?mails|mails|messages)\b/,
  /\b(do not|don't|dont) (want|wish) to be (contacted|e-?mailed)\b/,
  // de
  /\babmelden\b/, /\babmeldung\b/, /\b(melden|meldet|melde) (sie )?mich (bitte )?ab\b/, /\babbestellen\b/, /\bdeabonnieren\b/,
  /\baustragen\b/, /\b(tragen|tragt|trage) (sie )?mich (bitte )?aus\b/,
  /\b(entfernen|löschen|streichen) sie mich\b/, /\b(vom|aus dem|aus ihrem) verteiler\b/,
  /\bkeine (weiteren )?(e-?mails|mails|nachrichten|werbung|zusendungen) mehr\b/, /\bkeine weiteren (e-?mails|mails|nachrichten|zusendungen)\b/,
  /\b(nicht mehr|nie wieder) (kontaktieren|anschreiben|anmailen|mailen|schreiben|zuschicken|zusenden|senden)\b/,
  /\b(kontaktieren|schreiben|mailen|anschreiben) sie mich (bitte )?nicht mehr\b/,
  /\bkein interesse an (weiteren )?(e-?mails|mails|nachrichten)\b/,
  // fr
  /\bd[ée]sabonn(er|ez|e|ement)\b/, /\bd[ée]sinscri(re|vez|ption|s|t)\b/,
  /\b(retirez|supprimez|enlevez|rayez|effacez)[- ]moi\b/, /\b(retirer|supprimer) mon (adresse|e-?mail|courriel)\b/,
  /\bne (m'|me )(envoyez|[ée]crivez|contactez|sollicitez) (plus|jamais)\b/,
  /\bne plus (recevoir|me contacter|m'[ée]crire|m'envoyer)\b/,
  /\bne (veux|souhaite|d[ée]sire) plus (recevoir|[êe]tre contact)/,
  /\barr[êe]t(ez|er) de (m'envoyer|m'[ée]crire|me contacter|me solliciter)\b/,
  /\bpas int[ée]ress[ée]e?s? par (vos|ces|d'autres|de futurs) (e-?mails|mails|messages|courriels)\b/,
  // es
  /\bd(ar|ad|en|e|é)(me|nos)? de baja\b/, /\bdarse de baja\b/, /\b(cancelar|anular) (la |mi )?suscripci[óo]n\b/,
  /\bdes(u|in)scribir(me)?\b/,
  /\b(elim[ií]n|b[oó]rr|qu[ií]t|s[aá]qu|s[aá]c)\p{L}*me de (su|la|vuestra|tu|esta|sus) (lista|listas|base)\b/u,
  /\bno me (env[ií]e[ns]?|mande[ns]?|escriba[ns]?|contacte[ns]?|vuelva[ns]? a (escribir|contactar))\b/,
  /\bno (quiero|deseo) recibir (m[áa]s )?(sus |estos |los )?(correos|e-?mails|mensajes)\b/,
  /\bdej(e|en|a|ad) de (enviarme|escribirme|contactarme|mandarme)\b/,
  /\bno me interesa(n)? (recibir )?(m[áa]s )?(sus|estos|los|m[áa]s) (correos|e-?mails|mensajes)\b/,
  // nl
  /\bafmelden\b/, /\bmeld (mij|me) af\b/, /\buitschrijven\b/, /\buitgeschreven\b/, /\bschrijf (mij|me) uit\b/,
  /\bverwijder (mij|me)\b/, /\bhaal (mij|me) (van|uit)\b/,
  /\bgeen (e-?mails?|mails?|berichten) meer\b/,
  /\b(niet meer|nooit meer) (mailen|e-?mailen|benaderen|contacteren|sturen)\b/, /\b(mail|e-?mail|contacteer|benader) (mij|me) niet meer\b/,
  /\bstop met (mailen|e-?mailen|sturen|berichten)\b/,
  /\bgeen interesse in (verdere |meer )?(e-?mails|mails|berichten)\b/,
  // it
  /\bdisiscriv\w*/, /\bdisiscrizione\b/,
  /\bcancella(mi|temi|rmi)\b/, /\brimuov\w*mi\b/, /\brimuovere (il mio|la mia) (indirizzo|e-?mail)\b/,
  /\bnon (inviatemi|mandatemi|scrivetemi|contattatemi|mi (inviate|mandate|scrivete|contattate))\b/,
  /\bnon (voglio|desidero) (pi[uù] )?ricevere (pi[uù] |ulteriori |altre |le vostre |vostre |queste )?(e-?mail|mail|messaggi|comunicazioni)\b/,
  /\bsmett(ete|ila|a|i|ere) di (scrivermi|inviarmi|contattarmi|mandarmi)\b/,
  /\bnon (sono )?interessat[oaie] a (ulteriori|altre|queste|vostre) (e-?mail|mail|comunicazioni)\b/,
];

/** A whole reply of one word (courtesies aside) that asks to stop. */
const ONE_WORD_REQUESTS = new Set(['stop', 'stopp', 'remove', 'unsubscribe', 'baja', 'abmelden', 'afmelden', 'désabonner', 'cancellami']);
const COURTESIES = /\b(please|pls|thanks|thank you|bitte|danke|merci|svp|s'il vous pla[îi]t|por favor|gracias|graag|aub|alstublieft|per favore|grazie)\b/g;

/** Negations that, before a phrase in its clause, turn it around ("please don't remove me"). */
const NEGATIONS = new Set([
  'not', "don't", 'dont', "doesn't", "didn't", "won't", 'never', 'no', 'nor', // en (es "no")
  'nicht', 'kein', 'keine', 'nie', // de
  'ne', 'pas', 'jamais', // fr (and every n' word)
  'nunca', // es
  'niet', 'geen', 'nooit', // nl
  'non', 'mai', // it
]);
/** Words that open a new clause: a negation before them belongs to another thought. */
const CLAUSE_BREAK = /[.!?;:,\n()]|\b(but|and|aber|und|mais|et|pero|y|maar|ma|e)\b/g;
const GUARD_WORDS = 5;

const REPLY_PREFIX = /^\s*((re|aw|sv|vs|antw|antwort|r|rif|réf|ref|fwd?|wg|tr|rv|enc)\s*(\[\d+\])?\s*:\s*)+/i;

function normalize(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'").replace(/[ \t\u00a0]+/g, ' ');
}

const ORIGINAL_MARKER = new RegExp(
  '^\\s*(-{2,}\\s*(original message|ursprüngliche nachricht|originalnachricht|message d\'origine|mensaje original|messaggio originale|oorspronkelijk bericht|forwarded message|weitergeleitete nachricht)' +
    '|_{10,}|begin forwarded message)',
  'i',
);
const HEADER_FROM = /^\s*\*?(from|von|de|da|van|från)\s?\*?:/i;
const HEADER_SENT = /^\s*\*?(sent|date|gesendet|datum|envoy[ée]|enviado|fecha|inviato|data|verzonden|verstuurd)\s?\*?:/i;
const ATTRIBUTION = /^\s*(on\s.+wrote|am\s.+schrieb.*|le\s.+a\s[ée]crit\s?|el\s.+escribi[óo]|op\s.+schreef.*|il\s.+ha scritto)\s*:\s*$/i;

/** The reply's own words: quoted lines, attribution lines, the original message below an Outlook header or marker, and the signature dropped. */
export function ownText(text: string): string {
  const lines = text.split(/\r?\n/);
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === '-- ' || line === '--' || ORIGINAL_MARKER.test(line)) break;
    if (HEADER_FROM.test(line) && lines.slice(i + 1, i + 5).some((next) => HEADER_SENT.test(next))) break;
    if (/^\s*>/.test(line) || ATTRIBUTION.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n');
}

/** Whether a negation stands among the few words before `index` in the same clause. */
function negatedAt(text: string, index: number): boolean {
  const before = text.slice(0, index);
  let clauseStart = 0;
  for (const m of before.matchAll(CLAUSE_BREAK)) clauseStart = (m.index ?? 0) + m[0].length;
  const words = before.slice(clauseStart).match(/[\p{L}']+/gu) ?? [];
  return words.slice(-GUARD_WORDS).some((w) => NEGATIONS.has(w) || w.startsWith("n'"));
}

/** Whether `text` (lower-cased own words) holds a request to stop that no negation turns around. */
function requests(text: string): boolean {
  const bare = text.replace(COURTESIES, ' ').replace(/[^\p{L}\s]/gu, ' ').trim().replace(/\s+/g, ' ');
  if (ONE_WORD_REQUESTS.has(bare)) return true;
  for (const pattern of REQUESTS) {
    for (const m of text.matchAll(new RegExp(pattern.source, 'gu'))) {
      if (!negatedAt(text, m.index ?? 0)) return true;
    }
  }
  return false;
}

export interface ReplyToClassify {
  /** The reply's plain text (mailparser's `text`, HTML replies included, quotes as "> "). */
  text: string;
  subject?: string;
  /** The subject of our message it answers: the replier did not write it. */
  originalSubject?: string;
}

export function asksToUnsubscribe(reply: ReplyToClassify): boolean {
  if (requests(normalize(ownText(reply.text)))) return true;
  const subject = normalize(reply.subject ?? '').replace(REPLY_PREFIX, '').trim();
  const ours = normalize(reply.originalSubject ?? '').replace(REPLY_PREFIX, '').trim();
  const written = ours ? subject.split(ours).join(' ').trim() : subject;
  return written !== '' && requests(written);
}
