import { RevealAnswer, revealsExact } from './reveals-check';

const answers = (revealed: number, noContact: number, refused: number): RevealAnswer[] => [
  ...Array.from({ length: revealed }, () => ({ status: 201, reveal: 'revealed' })),
  ...Array.from({ length: noContact }, () => ({ status: 201, reveal: 'no_contact_found' })),
  ...Array.from({ length: refused }, () => ({ status: 402 })),
];

describe('the search bench\'s reveals check (200 concurrent against 100 credits)', () => {
  it('exact with no refund: 100 revealed, 100 refused, balance 0', () => {
    expect(revealsExact(answers(100, 0, 100), 100, { balance: 0, ledger: 0, consumed: 100, refunded: 0 })).toBe(true);
  });

  it('exact when no_contact_found reveals were refunded, whether or not a later reveal spent the refund', () => {
    // refunds came after every other reveal had been refused: 50 credits back on the account
    expect(revealsExact(answers(50, 50, 100), 100, { balance: 50, ledger: 50, consumed: 100, refunded: 50 })).toBe(true);
    // 10 refunds came early enough for 10 more reveals to be charged
    expect(revealsExact(answers(100, 10, 90), 100, { balance: 0, ledger: 0, consumed: 110, refunded: 10 })).toBe(true);
  });

  it('not exact: a charge too many, a refund lost or doubled, a ledger apart from the balance, another status, a reveal refused with credits left', () => {
    expect(revealsExact(answers(101, 0, 99), 100, { balance: -1, ledger: -1, consumed: 101, refunded: 0 })).toBe(false);
    expect(revealsExact(answers(50, 50, 100), 100, { balance: 0, ledger: 0, consumed: 100, refunded: 0 })).toBe(false);
    expect(revealsExact(answers(50, 50, 100), 100, { balance: 100, ledger: 100, consumed: 100, refunded: 100 })).toBe(false);
    expect(revealsExact(answers(100, 0, 100), 100, { balance: 0, ledger: 1, consumed: 100, refunded: 0 })).toBe(false);
    expect(revealsExact(answers(100, 0, 100), 100, { balance: 0, ledger: 0, consumed: 99, refunded: 0 })).toBe(false);
    expect(revealsExact([...answers(100, 0, 99), { status: 500 }], 100, { balance: 0, ledger: 0, consumed: 100, refunded: 0 })).toBe(false);
    expect(revealsExact(answers(99, 0, 101), 100, { balance: 1, ledger: 1, consumed: 99, refunded: 0 })).toBe(false);
  });
});
