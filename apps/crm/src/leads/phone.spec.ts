import { toE164 } from './phone';

describe('toE164', () => {
  describe('international numbers (country not needed)', () => {
    it.each([
      ['+1 202 456 1111', '+12024561111'],
      ['+1 (202) 456-1111', '+12024561111'],
      ['+44 20 7946 0958', '+442079460958'],
      ['+49 30 901820', '+4930901820'],
      ['+33 1 42 68 53 00', '+33142685300'],
      ['+4917612345678', '+4917612345678'],
    ])('%p -> %p', (raw, expected) => {
      expect(toE164(raw)).toBe(expected);
      expect(toE164(raw, null)).toBe(expected);
    });

    it('keeps the number\'s own country code when the lead\'s country differs', () => {
      expect(toE164('+44 20 7946 0958', 'US')).toBe('+442079460958');
    });
  });

  describe('national numbers read in the lead\'s country', () => {
    it.each([
      ['(202) 456-1111', 'US', '+12024561111'],
      ['202.456.1111', 'US', '+12024561111'],
      ['020 7946 0958', 'GB', '+442079460958'],
      ['020 7946 0958', 'gb', '+442079460958'],
      ['0176 12345678', 'DE', '+4917612345678'],
      ['01 42 68 53 00', 'FR', '+33142685300'],
    ])('%p in %p -> %p', (raw, country, expected) => {
      expect(toE164(raw, country)).toBe(expected);
    });

    it('the same digits mean different numbers in different countries', () => {
      expect(toE164('020 7946 0958', 'GB')).not.toBe(toE164('020 7946 0958', 'NL'));
    });
  });

  describe('invalid', () => {
    it.each([
      ['a national number without a country', '202 456 1111', undefined],
      ['letters', 'abc', undefined],
      ['letters with a country', 'call me', 'US'],
      ['too short', '+1 555', undefined],
      ['two digits', '12', 'US'],
      ['an unassigned country code', '+999 123 456', undefined],
      ['too long for the country', '+1 202 456 1111 9999', undefined],
      ['empty', '', 'US'],
    ])('%s (%p) -> null', (_label, raw, country) => {
      expect(toE164(raw, country)).toBeNull();
    });
  });

  it('every result is E.164: + and up to 15 digits', () => {
    for (const raw of ['+1 202 456 1111', '+44 20 7946 0958', '+49 30 901820']) {
      expect(toE164(raw)).toMatch(/^\+[1-9]\d{1,14}$/);
    }
  });
});
