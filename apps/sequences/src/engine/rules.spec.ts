import { renderTemplate, tagsIn, unknownTags } from './merge-tags';
import { publicHolidays } from './holidays';
import { addWait, nextWindowStart, parseWindow } from './schedule';
import { unsubscribeToken, verifyUnsubscribeToken } from './unsubscribe-token';
import { domainCandidates, suppressionCovers } from '../suppressions/matching';
import { countryAllows, effectiveRule } from '../sequences/country-rules';
import { isAutoReply, parseDeliveryStatus, referencedIds } from '../inbound/classify';

describe('merge tags', () => {
  const values = { first_name: 'Ada', last_name: '  ', company_name: 'Acme', title: null };
  it.each([
    ['Hi {{first_name}}', 'Hi Ada'],
    ['Hi {{ first_name | there }}', 'Hi Ada'],
    ['Hi {{last_name|there}}', 'Hi there'], // blank value: fallback
    ['Hi {{title|}}!', 'Hi !'], // empty fallback is a fallback
    ['{{company_name}} / {{company_name}}', 'Acme / Acme'],
    ['no tags', 'no tags'],
    ['{{ first_name|friend }} at {{company_name|your company}}', 'Ada at Acme'],
  ])('%s -> %s', (template, expected) => {
    expect(renderTemplate(template, values)).toEqual({ ok: true, text: expected });
  });
  it.each([
    ['Hi {{last_name}}', ['last_name']],
    ['{{title}} {{country}} {{title}}', ['title', 'country']],
  ])('%s holds the lead back, naming %j', (template, missing) => {
    expect(renderTemplate(template, values)).toEqual({ ok: false, missing });
  });
  it('lists tags and unknown tags', () => {
    expect(tagsIn('{{a|b}} {{c}}')).toEqual([{ name: 'a', fallback: 'b' }, { name: 'c', fallback: undefined }]);
    expect(unknownTags('{{first_name}} {{nickname|x}} {{unsubscribe_url}} {{nickname}}')).toEqual(['nickname']);
  });
});

describe('waits and windows', () => {
  const friday = new Date('2026-11-20T10:00:00Z');
  it('calendar days count weekends', () => {
    expect(addWait(friday, 3, false).toISOString()).toBe('2026-11-23T10:00:00.000Z');
  });
  it('business days skip the weekend and holidays', () => {
    expect(addWait(friday, 1, true).toISOString()).toBe('2026-11-23T10:00:00.000Z'); // Monday
    expect(addWait(friday, 3, true).toISOString()).toBe('2026-11-25T10:00:00.000Z'); // Wednesday
    expect(addWait(friday, 1, true, 'UTC', new Set(['2026-11-23'])).toISOString()).toBe('2026-11-24T10:00:00.000Z');
  });
  it("business days skip the recipient country's public holidays (date-holidays)", () => {
    const de = publicHolidays('de', 2026);
    expect(de.has('2026-12-25')).toBe(true);
    expect(de.has('2026-10-03')).toBe(true); // Tag der Deutschen Einheit
    expect(publicHolidays('US', 2026).has('2026-11-26')).toBe(true); // Thanksgiving
    expect(publicHolidays(null, 2026).size).toBe(0);
    // Thursday 24 December 2026 + 1 business day in Germany: 25th and 26th are holidays, 27th Sunday -> Monday 28th
    expect(addWait(new Date('2026-12-24T10:00:00Z'), 1, true, 'UTC', de).toISOString()).toBe('2026-12-28T10:00:00.000Z');
    expect(addWait(new Date('2026-12-24T10:00:00Z'), 1, true, 'UTC', publicHolidays('JP', 2026)).toISOString()).toBe('2026-12-25T10:00:00.000Z');
  });
  it('a zero wait is now', () => {
    expect(addWait(friday, 0, true).getTime()).toBe(friday.getTime());
  });
  it('inside the window: now; before it: its start; after it: the next day start', () => {
    expect(nextWindowStart(new Date('2026-11-20T10:00:00Z'), 'UTC', '09:00', '17:00').toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(nextWindowStart(new Date('2026-11-20T07:30:00Z'), 'UTC', '09:00', '17:00').toISOString()).toBe('2026-11-20T09:00:00.000Z');
    expect(nextWindowStart(new Date('2026-11-20T18:00:00Z'), 'UTC', '09:00', '17:00').toISOString()).toBe('2026-11-21T09:00:00.000Z');
  });
  it('windows are in the mailbox time zone', () => {
    // 10:00 UTC is 05:00 in New York (EST): the window opens at 14:00 UTC
    expect(nextWindowStart(new Date('2026-11-20T10:00:00Z'), 'America/New_York', '09:00', '17:00').toISOString()).toBe('2026-11-20T14:00:00.000Z');
    expect(nextWindowStart(new Date('2026-11-20T10:00:00Z'), 'Europe/Berlin', '09:00', '17:00').toISOString()).toBe('2026-11-20T10:00:00.000Z');
  });
  it('a window across midnight, and the whole day', () => {
    expect(nextWindowStart(new Date('2026-11-20T23:30:00Z'), 'UTC', '22:00', '06:00').toISOString()).toBe('2026-11-20T23:30:00.000Z');
    expect(nextWindowStart(new Date('2026-11-20T12:00:00Z'), 'UTC', '22:00', '06:00').toISOString()).toBe('2026-11-20T22:00:00.000Z');
    expect(nextWindowStart(new Date('2026-11-20T12:00:00Z'), 'UTC', '00:00', '00:00').toISOString()).toBe('2026-11-20T12:00:00.000Z');
  });
  it('parses windows', () => {
    expect(parseWindow('09:00-17:30')).toEqual({ start: '09:00', end: '17:30' });
    expect(parseWindow('9-17')).toBeNull();
    expect(parseWindow('24:00-17:00')).toBeNull();
  });
});

describe('suppression matching', () => {
  it('domains cover subdomains, case-insensitively', () => {
    expect(domainCandidates('A@X.Mail.Example.COM')).toEqual(['x.mail.example.com', 'mail.example.com', 'example.com']);
    expect(suppressionCovers({ type: 'domain', value: 'example.com' }, 'bob@sales.EXAMPLE.com')).toBe(true);
    expect(suppressionCovers({ type: 'domain', value: 'example.com' }, 'bob@notexample.com')).toBe(false);
    expect(suppressionCovers({ type: 'email', value: 'bob@example.com' }, 'Bob@Example.com')).toBe(true);
    expect(suppressionCovers({ type: 'email', value: 'bob@example.com' }, 'bobby@example.com')).toBe(false);
  });
});

describe('country rules', () => {
  const none = new Map();
  it.each([
    [{ country: 'DE', lawful_basis: 'legitimate_interest' }, false],
    [{ country: 'DE', lawful_basis: 'consent' }, true],
    [{ country: 'de', lawful_basis: 'legitimate_interest' }, false],
    [{ country: 'US', lawful_basis: 'legitimate_interest' }, true],
    [{ country: null, lawful_basis: 'legitimate_interest' }, true],
  ] as const)('%j allowed: %s', (lead, allowed) => {
    expect(countryAllows(lead, none)).toBe(allowed);
  });
  it('workspace overrides win over defaults', () => {
    expect(effectiveRule('DE', new Map([['DE', 'allow']]))).toBe('allow');
    expect(countryAllows({ country: 'US', lawful_basis: 'consent' }, new Map([['US', 'block']]))).toBe(false);
  });
});

describe('inbound classification', () => {
  it.each([
    [{ 'auto-submitted': 'auto-replied' }, 'Re: hello', true],
    [{ 'auto-submitted': 'no' }, 'Re: hello', false],
    [{ 'x-autoreply': 'yes' }, 'Re: hello', true],
    [{ precedence: 'auto_reply' }, 'Re: hello', true],
    [{}, 'Out of Office: back Monday', true],
    [{}, 'Abwesenheitsnotiz: Re: Hallo', true],
    [{}, 'Réponse automatique : Re: bonjour', true],
    [{}, 'Risposta automatica: Re: ciao', true],
    [{}, 'Re: your offer', false],
  ])('%j %s -> %s', (headers, subject, expected) => {
    expect(isAutoReply(new Map(Object.entries(headers)), subject)).toBe(expected);
  });
  it('reads RFC 3464 delivery status', () => {
    const dsn = 'Reporting-MTA: dns; mx.example.com\n\nFinal-Recipient: rfc822; Bob@Example.com\nAction: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 user unknown\n';
    expect(parseDeliveryStatus(dsn)).toEqual({ status: '5.1.1', recipient: 'bob@example.com', diagnostic: 'smtp; 550 5.1.1 user unknown', hard: true });
    expect(parseDeliveryStatus('Final-Recipient: rfc822; a@b.c\nStatus: 4.2.2\n')?.hard).toBe(false);
    expect(parseDeliveryStatus('nothing here')).toBeNull();
  });
  it('collects referenced Message-IDs', () => {
    expect(referencedIds('<a@x>', ['<b@x>', '<a@x>'])).toEqual(['<a@x>', '<b@x>']);
    expect(referencedIds(undefined, '<c@y> <d@y>')).toEqual(['<c@y>', '<d@y>']);
  });
});

describe('unsubscribe tokens', () => {
  it('verify only unaltered tokens', () => {
    const token = unsubscribeToken('enr_123', 'secret');
    expect(verifyUnsubscribeToken(token, 'secret')).toBe('enr_123');
    expect(verifyUnsubscribeToken(token, 'other')).toBeNull();
    expect(verifyUnsubscribeToken(token.replace('enr_123', 'enr_124'), 'secret')).toBeNull();
    expect(verifyUnsubscribeToken('garbage', 'secret')).toBeNull();
  });
});
