import { readFileSync } from 'node:fs';
import {
  COUNTRY_RULES, CreateMailboxRequest, CreateSequenceRequest, CreateSuppressionRequest, RequestContext, SUBJECTS,
} from '@app/contracts';
import { AdminContext } from '../admin-context';
import { nonNegativeInt, oneOf, required, UsageError } from '../args';
import { AdminCommand } from './command';

/** The workspace of a sequence (the commands name only the sequence), then its owner's context. */
async function contextOfSequence(admin: AdminContext, flags: Record<string, string>): Promise<RequestContext> {
  if (flags.workspace) return admin.contextFor(flags.workspace);
  const id = required(flags, 'sequence');
  const probe = { workspace_id: '', key_id: 'admin-cli', livemode: true } as RequestContext;
  const { workspace_id } = await admin.ask<{ workspace_id: string }>(SUBJECTS.sequences.owner, probe, { id });
  return admin.contextFor(workspace_id);
}

const sequenceAction = (name: string, subject: string, what: string): AdminCommand => ({
  name,
  usage: '--sequence <seq_id> [--workspace <ws_id>]',
  flags: ['sequence', 'workspace'],
  async run(admin, flags) {
    const ctx = await contextOfSequence(admin, flags);
    void what;
    return admin.ask(subject, ctx, { id: required(flags, 'sequence') });
  },
});

export const sequenceCommands: AdminCommand[] = [
  {
    name: 'mailbox:create',
    usage: '--workspace <ws_id> --email <addr> --smtp-url <smtp[s]://user:pass@host:port> [--imap-url <imaps://…>] [--daily-cap <n>] [--timezone <tz>] [--window 09:00-17:00]',
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
  sequenceAction('sequence:launch', SUBJECTS.sequences.launch, 'runs the pre-launch checklist, then active'),
  sequenceAction('sequence:pause', SUBJECTS.sequences.pause, 'paused'),
  sequenceAction('sequence:resume', SUBJECTS.sequences.resume, 'active again'),
  {
    name: 'optout:add',
    usage: '(--email <addr> | --domain <domain>) [--workspace <ws_id>]  (global opt-out; with --workspace, a workspace entry)',
    flags: ['email', 'domain', 'workspace'],
    async run(admin, flags) {
      if ((flags.email === undefined) === (flags.domain === undefined)) throw new UsageError('give exactly one of --email and --domain');
      const ctx: RequestContext = flags.workspace
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
    flags: ['workspace', 'country', 'rule'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      return admin.ask(SUBJECTS.sequences.countriesSet, ctx, { country: required(flags, 'country'), rule: oneOf('rule', required(flags, 'rule'), COUNTRY_RULES) });
    },
  },
  {
    name: 'mail:intake',
    usage: '--file <message.eml>  (a raw RFC 822 reply, bounce or auto-reply, as a forwarding setup would hand it over)',
    flags: ['file'],
    async run(admin, flags) {
      const raw = readFileSync(required(flags, 'file'), 'utf8');
      return admin.ask(SUBJECTS.sequences.inboundRaw, { workspace_id: '', key_id: 'admin-cli' } as RequestContext, { raw });
    },
  },
];
