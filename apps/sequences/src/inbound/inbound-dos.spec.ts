import { performance } from 'node:perf_hooks';
import { simpleParser } from 'mailparser';
import type { UnitOfWork } from '@app/platform';
import { EnrollmentsRepository } from '../enrollments/enrollments.repository';
import { MessageRow } from '../engine/message.mapper';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { InboundRepository } from './inbound.repository';
import { InboundService } from './inbound.service';

/**
 * Denial-of-service regression guards for inbound mail (issue 21). A stranger chooses every byte
 * of a reply or bounce, and `InboundService.intake` hands it to mailparser's `simpleParser`. The
 * crafted inputs of the advisories fixed by the mailparser 3.14 upgrade:
 * - GHSA-rcmh-qjqh-p98v / CVE-2025-14874 (nodemailer's addressparser, used by mailparser for
 *   every address header): deeply nested address groups `a: b: c: ... ;;;` recursed without bound;
 * - GHSA-v245-v573-v5vm (linkify-it < 5.0.2, mailparser's text-to-HTML linkifier) and
 *   CVE-2026-48801 (linkify-it < 5.0.1): a long run of `mailto:` text cost O(n^2).
 * Each must parse within a second (an explicit bound: the vulnerable versions take far longer or
 * crash) and the service must still classify the message.
 *
 * A time is the fastest of ATTEMPTS runs of the same input. The input's cost is in every run, so a
 * vulnerable parser fails each of them; a pause that is not the input's (a busy machine, another
 * test file's collection in this worker: one CI run measured 1,122 ms for a parse that takes 50 ms
 * alone) is in one run and not in the fastest.
 */

const BOUND_MS = 1000;
const ATTEMPTS = 3;
const GROUPS = 5000;
const MAILTO = 'mailto:'.repeat(50_000);

/** The fastest of ATTEMPTS runs, with the last run's result (each run parses the same input). */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  let fastest = Infinity;
  let result!: T;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const started = performance.now();
    result = await work();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return { result, ms: fastest };
}

/** `g0: g1: ... g4999: x@y.test ;;;...;` */
function nestedGroups(depth: number, address = 'rita@target.test'): string {
  return `${Array.from({ length: depth }, (_, i) => `g${i}:`).join(' ')} ${address}${';'.repeat(depth)}`;
}

function message(headers: string[], body: string): string {
  return [...headers, '', body, ''].join('\r\n');
}

const outbound: MessageRow = {
  id: 'msg_outbound1', workspace_id: 'ws_1', lead_id: 'lead_1', sequence_id: 'seq_1', enrollment_id: 'enr_1', step_position: 1,
  mailbox_id: 'mbx_1', direction: 'outbound', from_addr: 'out@sender.test', to_addr: 'rita@target.test', subject: 'Hello Rita',
  body: 'Hi', snippet: 'Hi', message_id: '<outbound1@sender.test>', status: 'sent', attempts: 1, lease_until: null,
  created_at: new Date(), sent_at: new Date(),
};

/**
 * The service with its own repositories faked: the outbound message above is found by its
 * Message-ID. The cases below end before any transaction (auto-reply, unmatched), so anything
 * else the service touched would throw and fail the test.
 */
function service(): InboundService {
  const refuse = (what: string) => () => { throw new Error(`unexpected ${what}`); };
  const inbound = {
    outboundByMessageIds: async (ids: string[]) => (ids.includes(outbound.message_id) ? outbound : undefined),
    lastSentTo: async () => undefined,
  } as unknown as InboundRepository;
  const uow = { run: refuse('transaction') } as unknown as UnitOfWork;
  return new InboundService(inbound, {} as SuppressionsService, {} as EnrollmentsRepository, uow);
}

describe('inbound mail: crafted inputs of the parser advisories answer within a second', () => {
  // The first parse loads mailparser's lazy parts (html-to-text, the TLD list): not the input's cost.
  beforeAll(async () => {
    await simpleParser(message(['From: a@b.test', 'To: c@d.test', 'Subject: warm-up', 'Content-Type: text/html'], '<p>mailto:x@y.test</p>'));
  });

  it(`a To header of ${GROUPS} nested address groups (GHSA-rcmh-qjqh-p98v)`, async () => {
    const raw = message(['From: Rita <rita@target.test>', `To: ${nestedGroups(GROUPS)}`, 'Subject: Re: Hello Rita', 'Message-ID: <nested-to@target.test>'], 'Sounds good.');
    const { result: parsed, ms } = await timed(() => simpleParser(raw));
    expect(ms).toBeLessThan(BOUND_MS);
    const to = Array.isArray(parsed.to) ? parsed.to : [parsed.to];
    expect(JSON.stringify(to)).toContain('rita@target.test');
    expect(parsed.text?.trim()).toBe('Sounds good.');

    const intake = await timed(() => service().intake(raw));
    expect(intake.ms).toBeLessThan(BOUND_MS);
    expect(intake.result).toEqual({ kind: 'unmatched' }); // it names none of our messages
  });

  it(`a From header of ${GROUPS} nested address groups on an out-of-office to one of our emails`, async () => {
    const raw = message([
      `From: ${nestedGroups(GROUPS)}`, 'To: out@sender.test', 'Subject: Automatic reply: Hello Rita', 'Auto-Submitted: auto-replied',
      `In-Reply-To: ${outbound.message_id}`, 'Message-ID: <nested-from@target.test>',
    ], 'I am away until Monday.');
    const { ms } = await timed(() => simpleParser(raw));
    expect(ms).toBeLessThan(BOUND_MS);

    const intake = await timed(() => service().intake(raw));
    expect(intake.ms).toBeLessThan(BOUND_MS);
    expect(intake.result).toEqual({ kind: 'auto_reply', message_id: outbound.id });
  });

  it('a text/plain body of 50,000 `mailto:` (GHSA-v245-v573-v5vm, CVE-2026-48801)', async () => {
    const raw = message([
      'From: Rita <rita@target.test>', 'To: out@sender.test', 'Subject: Out of office', `In-Reply-To: ${outbound.message_id}`,
      'Message-ID: <mailto-text@target.test>', 'Content-Type: text/plain; charset=utf-8',
    ], MAILTO);
    const { result: parsed, ms } = await timed(() => simpleParser(raw));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(parsed.text?.trim()).toBe(MAILTO); // the text is kept whole
    expect(parsed.textAsHtml).toContain('mailto:'); // and linkified (the code path of the advisory)

    const intake = await timed(() => service().intake(raw));
    expect(intake.ms).toBeLessThan(BOUND_MS);
    expect(intake.result).toEqual({ kind: 'auto_reply', message_id: outbound.id });
  });

  it('a text/html body of 50,000 `mailto:`', async () => {
    const raw = message([
      'From: Rita <rita@target.test>', 'To: out@sender.test', 'Subject: Re: something else', 'Message-ID: <mailto-html@target.test>',
      'Content-Type: text/html; charset=utf-8',
    ], `<html><body><p>${MAILTO}</p></body></html>`);
    const { result: parsed, ms } = await timed(() => simpleParser(raw));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(parsed.html).toContain(MAILTO);
    expect(parsed.text).toContain(MAILTO); // html-to-text kept it

    const intake = await timed(() => service().intake(raw));
    expect(intake.ms).toBeLessThan(BOUND_MS);
    expect(intake.result).toEqual({ kind: 'unmatched' }); // it names none of our messages
  });
});
