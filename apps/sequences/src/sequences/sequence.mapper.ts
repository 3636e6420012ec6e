import { Sequence, SequenceStats, SequenceStep } from '@app/contracts';
import { SequenceStepEntity } from './sequence-step.entity';
import { SequenceEntity } from './sequence.entity';

export type SequenceRow = SequenceEntity;
export type StepRow = SequenceStepEntity;

export function renderStep(row: StepRow): SequenceStep {
  return { position: row.position, type: row.type, subject: row.subject, wait_days: row.wait_days };
}

export function renderSequence(row: SequenceRow, steps: StepRow[], stats: SequenceStats): Sequence {
  return {
    id: row.id,
    object: 'sequence',
    name: row.name,
    lens: row.lens,
    status: row.status,
    mailbox_ids: row.mailbox_ids,
    business_days_only: row.business_days_only,
    steps: steps.map(renderStep),
    stats,
    created_at: row.created_at.toISOString(),
    launched_at: row.launched_at ? row.launched_at.toISOString() : null,
  };
}
