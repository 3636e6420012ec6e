import { Suppression } from '@app/contracts';
import { SuppressionEntity } from './suppression.entity';

export type SuppressionRow = SuppressionEntity;

export function renderSuppression(row: SuppressionRow): Suppression {
  return { id: row.id, object: 'suppression', type: row.type, value: row.value, reason: row.reason, scope: row.scope, created_at: row.created_at.toISOString() };
}
