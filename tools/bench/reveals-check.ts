/** One answer of the search bench's concurrent reveals: the HTTP status and the reveal's `status`. */
export interface RevealAnswer {
  status: number;
  reveal?: string;
}

/** The reveals workspace's account after them: balance, ledger sum, and its consume and refund entries. */
export interface RevealAccount {
  balance: number;
  ledger: number;
  consumed: number;
  refunded: number;
}

/**
 * Whether `answers.length` concurrent reveals against `credits` credits came out exact. A reveal that
 * found nothing verifiable answers 201 `no_contact_found` and its credit is refunded (the spec's POST
 * /reveals), which a later reveal of the same burst may then spend. Exact: every request charged once
 * (201) or refused (402), and none refused while enough credits were there (at least `credits`
 * charged); one refund per `no_contact_found`; the balance what the grant, the charges and the
 * refunds leave, never below 0, and equal to the ledger's sum. With no refund: `credits` revealed,
 * the rest refused, balance 0.
 */
export function revealsExact(answers: readonly RevealAnswer[], credits: number, account: RevealAccount): boolean {
  const charged = answers.filter((a) => a.status === 201);
  const refused = answers.filter((a) => a.status === 402).length;
  const noContact = charged.filter((a) => a.reveal === 'no_contact_found').length;
  const revealed = charged.filter((a) => a.reveal === 'revealed').length;
  return charged.length + refused === answers.length
    && revealed + noContact === charged.length
    && charged.length >= Math.min(credits, answers.length)
    && account.consumed === charged.length
    && account.refunded === noContact
    && account.balance === credits - account.consumed + account.refunded
    && account.balance >= 0
    && account.ledger === account.balance;
}
