import { readFileSync } from 'node:fs';
import type { RequestContext } from '@app/contracts/context';
import type { CreateMailboxRequest, CreateSequenceRequest, CreateSuppressionRequest } from '@app/contracts/dto/sequence.dto';
import { COUNTRY_RULES } from '@app/contracts/enums';
import { SUBJECTS } from '@app/contracts/subjects';
import { ActingContext, AdminContext } from '../admin-context';
import { nonNegativeInt, oneOf, required, UsageError } from '../args';
import { AdminCommand } from './command';

/** The workspace of a sequence (the commands name only the sequence), then its owner's context. */
async function contextOfSequence(admin: AdminContext, flags: Record<string, string>): Promise<ActingContext> {
  if (flags.workspace) return admin.contextFor(flags.workspace);
  const id = required(flags, 'sequence');
  const probe = { workspace_id: '', key_id: 'admin-cli', livemode: true } as RequestContext;
  const { workspace_id } = await admin.ask<{ workspace_id: string }>(SUBJECTS.sequences.owner, probe, { id });
  return admin.contextFor(workspace_id);
}

const sequenceAction = (name: string, subject: string, what: string): AdminCommand => ({
  name,
  usage: '--sequence <seq_id> [--workspace <ws_id>]',
  summary: `${what} (asks sequences)`,
  example: `${name} --sequence seq_...`,
  flags: ['sequence', 'workspace'],
  async run(admin, flags) {
    const ctx = await contextOfSequence(admin, flags);
    return admin.ask(subject, ctx, { id: required(flags, 'sequence') });
  },
});

export const sequenceCommands: AdminCommand[] = [
  {
    name: 'mailbox:create',
    usage: '--workspace <ws_id> --email <addr> --smtp-url <smtp[s]://user:pass@host:port> [--imap-url <imaps://…>] [--daily-cap <n>] [--timezone <tz>] [--window 09:00-17:00]',
    summary: 'A sending mailbox (SMTP, and IMAP to poll replies and bounces) with its daily cap, time zone and sending window (asks sequences)',
    example: 'mailbox:create --workspace ws_... --email sales@acme.test --smtp-url smtps://sales%40acme.test:secret@smtp.acme.test:465 --daily-cap 150 --timezone Europe/Berlin',
    flags: ['workspace', 'email', 'smtp-url', 'imap-url', 'daily-cap', 'timezone', 'window'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      const body: CreateMailboxRequest = {
        email: required(flags, 'email'),
        smtp_url: required(flags, 'smtp-url'),
        imap_url: flags['imap-url'],
        daily_cap: flags['daily-cap'] !== undefined ? nonNegativeInt('daily-cap', flags['daily-cap'], 200) : undefined,
        timezone: flags.timezone,
        window: flags.window,
      };
      return admin.ask(SUBJECTS.sequences.mailboxesCreate, ctx, body);
    },
  },
  {
    name: 'sequence:create',
    usage: '--workspace <ws_id> --file <sequence.json>',
    summary: 'A sequence from a JSON file {name, lens, mailbox_ids, business_days_only, steps: [{type: email, subject, body} | {type: wait, wait_days}]} (asks sequences)',
    example: 'sequence:create --workspace ws_... --file sequence.json',
    flags: ['workspace', 'file'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      let body: CreateSequenceRequest;
      try {
        body = JSON.parse(readFileSync(required(flags, 'file'), 'utf8'));
      } catch (err) {
        throw new UsageError(`--file must name a readable JSON sequence file: ${(err as Error).message}`);
      }
      return admin.ask(SUBJECTS.sequences.create, ctx, body);
    },
  },
  sequenceAction('sequence:launch', SUBJECTS.sequences.launch, 'Runs the pre-launch checklist, then the sequence is active; refused with every failing check listed'),
  sequenceAction('sequence:pause', SUBJECTS.sequences.pause, 'Pauses an active sequence: no step is sent until it resumes'),
  sequenceAction('sequence:resume', SUBJECTS.sequences.resume, 'A paused sequence active again'),
  {
    name: 'optout:add',
    usage: '(--email <addr> | --domain <domain>) [--workspace <ws_id>]',
    summary: 'A global opt-out of an address or domain; with --workspace, that workspace\'s suppression list only (asks sequences)',
    example: 'optout:add --domain competitor.test',
    flags: ['email', 'domain', 'workspace'],
    async run(admin, flags) {
      if ((flags.email === undefined) === (flags.domain === undefined)) throw new UsageError('give exactly one of --email and --domain');
      const ctx: ActingContext = flags.workspace
        ? await admin.contextFor(flags.workspace)
        : ({ workspace_id: '', key_id: 'admin-cli', livemode: true, api_version: '2026-09-28' } as RequestContext);
      const body: CreateSuppressionRequest = flags.email
        ? { type: 'email', value: flags.email, reason: flags.workspace ? 'manual' : 'opt_out', scope: flags.workspace ? 'workspace' : 'global' }
        : { type: 'domain', value: flags.domain, reason: flags.workspace ? 'manual' : 'opt_out', scope: flags.workspace ? 'workspace' : 'global' };
      return admin.ask(SUBJECTS.sequences.suppressionsCreate, ctx, body);
    },
  },
  {
    name: 'countries:set',
    usage: `--workspace <ws_id> --country <CC> --rule ${COUNTRY_RULES.join('|')}`,
    summary: "A workspace's sending rule for leads of one country (asks sequences)",
    example: 'countries:set --workspace ws_... --country DE --rule consent_required',
    flags: ['workspace', 'country', 'rule'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      return admin.ask(SUBJECTS.sequences.countriesSet, ctx, { country: required(flags, 'country'), rule: oneOf('rule', required(flags, 'rule'), COUNTRY_RULES) });
    },
  },
  {
    name: 'mail:intake',
    usage: '--file <message.eml>',
    summary: 'A raw RFC 822 reply, bounce or auto-reply, as a forwarding setup would hand it over (asks sequences; mailboxes with an IMAP URL are also polled)',
    example: 'mail:intake --file reply.eml',
    flags: ['file'],
    async run(admin, flags) {
      const raw = readFileSync(required(flags, 'file'), 'utf8');
      return admin.ask(SUBJECTS.sequences.inboundRaw, { workspace_id: '', key_id: 'admin-cli' } as RequestContext, { raw });
    },
  },
];
