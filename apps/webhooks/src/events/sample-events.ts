import { CreditBalance, EmailMessage, Enrollment, EventData, Lead, LeadStageChange, PublicEventType, Reveal, Suppression } from '@app/contracts';

/**
 * `data` of the sample event of each type (POST /webhook_endpoints/{id}/test): a resource of the
 * type's `data.object`, typed against the contract so a sample has every field the real event
 * has. Its ids name no object of the workspace (`_sample` in place of the random part), and its
 * times are the moment it is sent.
 */
export function sampleData(type: PublicEventType, at: string): EventData {
  const lead: Lead = {
    id: 'lead_sample', object: 'lead', lens: 'leads', first_name: 'Ada', last_name: 'Lovelace', full_name: 'Ada Lovelace',
    title: 'Head of Engineering', email: 'ada@example.com', email_status: 'valid', email_confidence: 0.97, phone: null,
    website: 'https://example.com', company_id: 'co_sample', company_name: 'Example Ltd', country: 'GB', revealed: true,
    lawful_basis: 'legitimate_interest', owner_id: null, tags: ['sample'], stage: null, custom_fields: {}, created_at: at, updated_at: at,
  };
  const outbound: EmailMessage = {
    id: 'msg_sample', object: 'email_message', lead_id: lead.id, sequence_id: 'seq_sample', mailbox_id: 'mbx_sample', direction: 'outbound',
    from: 'sales@example.org', to: 'ada@example.com', subject: 'Quick question', snippet: 'Hi Ada, ...', sent_at: at,
  };
  switch (type) {
    case 'lead.created':
      return { object: lead };
    case 'lead.updated':
      return { object: { ...lead, title: 'CTO' }, previous_attributes: { title: lead.title } };
    case 'lead.stage_changed': {
      const change: LeadStageChange = {
        object: 'lead_stage_change', lead_id: lead.id, pipeline_id: 'pl_sample',
        from_stage: { pipeline_id: 'pl_sample', stage_id: 'st_sample_new', name: 'New' },
        to_stage: { pipeline_id: 'pl_sample', stage_id: 'st_sample_contacted', name: 'Contacted' },
        changed_at: at,
      };
      return { object: change };
    }
    case 'reveal.completed': {
      const reveal: Reveal = {
        id: 'rev_sample', object: 'reveal', entity_id: 'ent_sample', lead_id: null, status: 'dry_run', email: null, email_status: null,
        email_confidence: null, phone: null, credits_charged: 0, already_revealed: false, livemode: false, sources: [], created_at: at,
      };
      return { object: reveal };
    }
    case 'email.sent':
      return { object: outbound };
    case 'email.replied':
      return { object: { ...outbound, id: 'msg_sample_reply', direction: 'inbound', from: outbound.to, to: outbound.from, subject: `Re: ${outbound.subject}`, snippet: 'Thanks, tell me more.' } };
    case 'email.bounced':
      return { object: { ...outbound, snippet: '550 5.1.1 The email account that you tried to reach does not exist.' } };
    case 'sequence.completed': {
      const enrollment: Enrollment = {
        id: 'enr_sample', object: 'enrollment', sequence_id: 'seq_sample', lead_id: lead.id, status: 'completed', current_step: 3,
        next_send_at: null, enrolled_at: at, stopped_at: null, stop_reason: null,
      };
      return { object: enrollment };
    }
    case 'unsubscribe.created': {
      const suppression: Suppression = {
        id: 'sup_sample', object: 'suppression', type: 'email', value: 'ada@example.com', reason: 'unsubscribe', scope: 'workspace', created_at: at,
      };
      return { object: suppression };
    }
    case 'credits.low': {
      const balance: CreditBalance = {
        object: 'credit_balance', plan: 'agency', balance: { plan: 120, pack: 0, total: 120 }, period_ends_at: at, ledger: [],
      };
      return { object: balance };
    }
  }
}
