import type { EntityInput } from '@app/contracts/resources/entity-input';

export { type EntityInput, facet } from '@app/contracts/resources/entity-input';

/**
 * The facet tokens of `terms`: 'F:' || facet, each once. A facet of 2,000 bytes or more is left
 * out (a tsvector lexeme is at most 2,047 bytes; filter values are at most 100 characters, so no
 * filter could ask for one), as are nulls.
 */
export function facetTerms(facets: readonly unknown[] | undefined): string[] {
  const terms = new Set<string>();
  for (const f of facets ?? []) {
    const value = facetTermValue(f);
    if (value !== undefined) terms.add(`F:${value}`);
  }
  return [...terms];
}

/** A facet as the text its term holds after 'F:', undefined for one facetTerms leaves out (null, 2,000 bytes or more). */
export function facetTermValue(f: unknown): string | undefined {
  if (f === null || f === undefined) return undefined;
  const value = String(f);
  return value.length >= 600 && Buffer.byteLength(value) >= 2000 ? undefined : value;
}

/** `jane@acme.com` -> `j***@acme.com` */
export function maskEmail(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** `+14155550123` -> `+1415***0123` */
export function maskPhone(phone: string | null): string | null {
  if (!phone) return null;
  if (phone.length <= 6) return '***';
  return `${phone.slice(0, Math.min(5, phone.length - 4))}***${phone.slice(-4)}`;
}

/**
 * The details that say what an entity is about: its topics, sectors (industry for a company),
 * program, agency and mechanism. Free text (`q`) matches their words as it matches names (the
 * spec: "names, topics, domains, programs"), whichever connector wrote them.
 */
const TEXT_DETAILS = ['topics', 'sectors', 'industry', 'agency', 'program', 'mechanism'] as const;

/** `text` with `v` after it (a space between), when `v` is set. */
function withWord(text: string, v: unknown): string {
  if (!v) return text;
  return text === '' ? `${v}` : `${text} ${v}`;
}

/**
 * The words `q` matches: names, organization, title, domain, location, the details above, and
 * `search_text`, the words a connector adds from its source (keywords, category names, former
 * names...).
 */
export function searchTextOf(e: EntityInput): string {
  // one string built as it goes (this runs for every row a seed or an ingest writes): the fields
  // that are set, then the details' strings (a detail that is an array: its strings), then
  // search_text; no closure made per row (the bundle names every closure it makes)
  let text = withWord('', e.name);
  text = withWord(text, e.person_name);
  text = withWord(text, e.organization);
  text = withWord(text, e.title);
  text = withWord(text, e.domain);
  text = withWord(text, e.location);
  const details = e.details;
  if (details) {
    for (const key of TEXT_DETAILS) {
      const v = details[key];
      if (typeof v === 'string') text = withWord(text, v);
      else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') text = withWord(text, x);
    }
  }
  return withWord(text, e.search_text);
}

/**
 * A search text cut in two for `terms` (entities.repository.ts TERMS_SQL): `plain`, the tokens
 * between spaces that are ASCII letters and digits only (one trailing comma allowed; at most 255
 * characters; no capital I, which a Turkish locale lowers to a dotless ı), lowered and joined by
 * spaces: each is one lexeme of to_tsvector('simple'); and `other`, the remaining tokens joined by
 * spaces, left to PostgreSQL's parser. The parser's tokens never span a space except inside a
 * `<...>` tag, so a text with a '<' is all `other`. The union of the two is the lexemes of the
 * whole text (checked against PostgreSQL: entity-terms.integration-spec.ts); PostgreSQL's parser
 * was the largest part of the upsert's cost of a generated entity.
 */
export function splitSearchText(text: string): { plain: string; other: string } {
  if (text.indexOf('<') !== -1) return { plain: '', other: text };
  let plain = '';
  let other = '';
  const n = text.length;
  let s = 0;
  while (s < n) {
    let e = text.indexOf(' ', s);
    if (e === -1) e = n;
    if (e > s) {
      const end = plainWordEnd(text, s, e);
      if (end > 0) {
        const word = text.slice(s, end).toLowerCase();
        plain = plain === '' ? word : `${plain} ${word}`;
      } else {
        const token = text.slice(s, e);
        other = other === '' ? token : `${other} ${token}`;
      }
    }
    s = e + 1;
  }
  return { plain, other };
}

/**
 * For the token text[s, e) (no space in it): where its plain word ends (e, or e - 1 before one
 * trailing comma), or -1 when it is not one (splitSearchText).
 */
export function plainWordEnd(text: string, s: number, e: number): number {
  let end = e;
  if (end - s > 1 && text.charCodeAt(end - 1) === 0x2c) end--; // ,
  if (end - s > 255) return -1;
  for (let i = s; i < end; i++) {
    const c = text.charCodeAt(i);
    // a-z, 0-9, A-Z but I
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a && c !== 0x49))) return -1;
  }
  return end;
}

/** A token PostgreSQL's parser reads as a number in scientific notation and a word after it ('6E75x': '6e75', 'x'). */
const FLOAT_THEN_WORD = /^[0-9]+[eE][0-9]+[A-Za-z]/;
/** ASCII letters and digits (one trailing comma allowed): one lexeme, lowered. */
const WORD = /^[A-Za-z0-9]+$/;
/** Words of ASCII letters and digits joined by underscores: the parser's blank, so each word is a lexeme. */
const UNDERSCORED = /^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+$/;
/** A lower-case host name whose labels start with a letter and whose last label is two letters or more: one lexeme, as it is. */
const HOST = /^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9]*)*\.[a-z]{2,}$/;
/** ASCII words joined by hyphens: the whole, lowered, and each word. */
const HYPHENATED = /^[A-Za-z]+(?:-[A-Za-z]+)+$/;

/**
 * The lexemes `terms` holds for an entity (entities.repository.ts TERMS_SQL), made here: the search
 * text's plain words (splitSearchText), its other tokens as PostgreSQL's parser and the 'simple'
 * configuration make them, and the facet terms, each once, in no order. Undefined when a token is
 * of a shape not listed here (a tag, a URL, an e-mail address, a number with a point, a word not
 * ASCII, anything longer than 255 characters, ...): such a text is parsed by PostgreSQL, as every
 * text was before. The shapes listed (words with a capital I, words joined by underscores or
 * hyphens, lower-case host names) were checked against PostgreSQL 15's parser over 700,000 tokens
 * made at random (entity-terms.integration-spec.ts keeps a smaller check), and a writer checks
 * them once against its own server before it uses them (EntitiesRepository: the lowering of
 * 'I' follows the database's locale there).
 */
export function termsOf(text: string, facets: readonly string[]): string[] | undefined {
  if (text.indexOf('<') !== -1) return undefined;
  const terms = new Set<string>();
  const n = text.length;
  for (let s = 0; s < n; ) {
    let e = text.indexOf(' ', s);
    if (e === -1) e = n;
    if (e > s) {
      const end = plainWordEnd(text, s, e);
      if (end > 0) terms.add(text.slice(s, end).toLowerCase());
      else if (!otherTerms(text.slice(s, e), terms)) return undefined;
    }
    s = e + 1;
  }
  for (const f of facets) {
    if (f.indexOf('\0') !== -1) return undefined;
    terms.add(f);
  }
  return [...terms];
}

/** What termsOf knows a token that is not a plain word to be (tokenShape). */
export const TokenShape = { Unknown: 0, Word: 1, Underscored: 2, Host: 3, Hyphenated: 4 } as const;
export type TokenShape = (typeof TokenShape)[keyof typeof TokenShape];

/** Where a token's word ends: its length, or one less before a trailing comma (the parser's blank). */
export function wordEndOf(token: string): number {
  return token.length > 1 && token.charCodeAt(token.length - 1) === 0x2c ? token.length - 1 : token.length;
}

/**
 * The shape of a token that is not a plain word: a word of ASCII letters and digits, one trailing
 * comma allowed (its lexeme the word lowered, up to wordEndOf), words joined by underscores (each
 * word lowered), a lower-case host name (itself), words joined by hyphens (the whole lowered, and
 * each word); Unknown for anything else, for a token longer than 255 characters, and for a word
 * PostgreSQL reads as a number in scientific notation and a word after it.
 */
export function tokenShape(token: string): TokenShape {
  if (token.length > 255) return TokenShape.Unknown;
  const wordEnd = wordEndOf(token);
  const word = wordEnd === token.length ? token : token.slice(0, wordEnd);
  if (WORD.test(word)) return FLOAT_THEN_WORD.test(word) ? TokenShape.Unknown : TokenShape.Word;
  if (UNDERSCORED.test(token)) {
    for (const part of token.split('_')) if (FLOAT_THEN_WORD.test(part)) return TokenShape.Unknown;
    return TokenShape.Underscored;
  }
  if (HOST.test(token)) return TokenShape.Host;
  if (HYPHENATED.test(token)) return TokenShape.Hyphenated;
  return TokenShape.Unknown;
}

/** Adds the lexemes of a token that is not a plain word to `terms`; false when its shape is not one termsOf knows. */
function otherTerms(token: string, terms: Set<string>): boolean {
  const lowered = token.toLowerCase();
  switch (tokenShape(token)) {
    case TokenShape.Word:
      terms.add(lowered.slice(0, wordEndOf(token)));
      return true;
    case TokenShape.Underscored:
      for (const part of lowered.split('_')) terms.add(part);
      return true;
    case TokenShape.Host:
      terms.add(token);
      return true;
    case TokenShape.Hyphenated:
      terms.add(lowered);
      for (const part of lowered.split('-')) terms.add(part);
      return true;
    default:
      return false;
  }
}
