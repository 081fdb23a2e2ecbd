import { sql, type RawBuilder } from 'kysely';
import { ENTITY_TYPE, type PushReceipt } from '@calsync/domain';
import { recordTypeOfEntity } from './conflict-mapping.js';

/** A receipt key as the store looks it up. */
export type ReceiptKey = Omit<PushReceipt, 'result'>;

/**
 * `from push_receipts r … where …`: the user's receipts matching `keys`, joined on the three key
 * arrays in one parameter each. The one place the receipt lookup is written; `findReceipts` and
 * the one-statement push prefetch both select from it.
 */
export function matchingReceipts(userId: number, keys: readonly ReceiptKey[]): RawBuilder<unknown> {
  return sql`from push_receipts r
    join unnest(cast(${keys.map((k) => ENTITY_TYPE[k.type])} as text[]), cast(${keys.map((k) => k.uid)} as text[]),
                cast(${keys.map((k) => k.fingerprint)} as text[])) as k(entity_type, uid, fingerprint)
      on r.entity_type = k.entity_type and r.uid = k.uid and r.fingerprint = k.fingerprint
    where r.user_id = ${userId}`;
}

/** A stored receipt from its columns (entity type, uid, fingerprint, result). */
export function receiptFromSql(entityType: unknown, uid: unknown, fingerprint: unknown, result: unknown): PushReceipt {
  return { type: recordTypeOfEntity(String(entityType)), uid: String(uid), fingerprint: String(fingerprint), result };
}
