import { DomainError } from '../errors.js';
import { settleFields } from '../records/record-state.js';
import type { FieldValues, RecordType } from '../records/types.js';
import { promotionDemotions } from './decide-push-item.js';
import { checkReferences } from '../rules/references.js';
import type { RowChange, RowView } from './row-view.js';

/**
 * Decides the restore of a loser snapshot (docs/protocol.md): the snapshot's fields go back on
 * the row with a new version and any tombstone is cleared; restoring a default calendar demotes the
 * others first. Not a push: no loser is stored. Throws UNKNOWN_REFERENCE when a parent it names is
 * no longer live, NOT_FOUND when the row itself is gone.
 */
export function decideRestore(type: RecordType, uid: string, fields: FieldValues, view: RowView): RowChange[] {
  if (view.get(type, uid) === null) throw new DomainError('NOT_FOUND', 'record not found');
  // A snapshot taken before a rule existed (an all-day event stored as instants) is stored as the rules read it now.
  const settled = settleFields(type, fields);
  if (!settled.ok) throw new DomainError('VALIDATION_ERROR', settled.error.message);
  const problem = checkReferences(type, uid, settled.value, view);
  if (problem !== null) {
    if (problem.code === 'UNKNOWN_REFERENCE') throw new DomainError('UNKNOWN_REFERENCE', problem.message);
    throw new DomainError('VALIDATION_ERROR', problem.message);
  }
  return [...promotionDemotions(type, uid, settled.value, view), { type, uid, fields: settled.value, deleted: false }];
}
