/**
 * A connection attempt that got no answer, in words: apart from connection-check.ts, so that a
 * process that only needs the words (the admin CLI, when NATS does not answer) loads neither
 * nats.js's JetStream client nor node-postgres for them.
 */

const NO_ANSWER: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'no answer (timed out)',
  ECONNRESET: 'connection reset',
};

export function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; errors?: { code?: string }[] };
  return e?.code ?? e?.errors?.find((inner) => inner.code)?.code;
}

/** Why a connection attempt got no answer, in words, or undefined when the server did answer. */
export function noAnswerReason(err: unknown): string | undefined {
  const code = errorCode(err);
  if (code && NO_ANSWER[code]) return NO_ANSWER[code];
  // node-postgres' own connect timeout, and a connection the server closed before speaking
  const message = String((err as Error)?.message ?? '');
  if (/timeout/i.test(message)) return 'no answer (timed out)';
  if (/Connection terminated unexpectedly/i.test(message)) return 'the server closed the connection';
  return undefined;
}
