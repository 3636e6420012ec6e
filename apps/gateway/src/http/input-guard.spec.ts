import { unstorableField } from './input-guard';

describe('unstorableField', () => {
  it.each<[string, unknown, string | null]>([
    ['a plain object', { full_name: 'Ada', tags: ['a', 'b'], n: 1, ok: true, none: null }, null],
    ['a paired surrogate (emoji)', { full_name: 'Ada \u{1F600}' }, null],
    ['a NUL in a value', { full_name: 'A\u0000' }, 'full_name'],
    ['a lone high surrogate', { title: 'x\ud800' }, 'title'],
    ['a lone high surrogate at the end', { title: '\ud83d' }, 'title'],
    ['a lone low surrogate', { title: '\udc00x' }, 'title'],
    ['swapped surrogates', { title: '\ude00\ud83d' }, 'title'],
    ['an array item', { tags: ['ok', 'b\u0000'] }, 'tags.1'],
    ['a nested value', { custom_fields: { tier: { level: '\u0000' } } }, 'custom_fields.tier.level'],
    ['an object key', { custom_fields: { 'ti\u0000er': 'a' } }, 'custom_fields.ti\u0000er'],
  ])('%s', (_label, value, expected) => expect(unstorableField(value, '')).toBe(expected));
});
