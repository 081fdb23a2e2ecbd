import { sql, type RawBuilder } from 'kysely';
import { ENTITY_TYPE, type PushReceipt, type ReceiptKey } from '@calsync/domain';
import { recordTypeOfEntity } from './conflict-mapping.js';

/**
 * `from … r`: the user's receipts matching `keys` (three key arrays, one parameter each), one probe
 * of the full primary key (user_id, entity_type, uid, fingerprint) per key: the LIMIT 1 subquery
 * (the key is unique, so it changes no answer) cannot be flattened into a join that reads the
 * user's receipts by user_id alone, whatever plan the statement gets. Fingerprints are stored as
 * their bytes (migration 0011) and travel as hex. Written once; the one-statement push prefetch
 * selects from it.
 */
export function matchingReceipts(userId: number, keys: readonly ReceiptKey[]): RawBuilder<unknown> {
  return sql`from unnest(cast(${keys.map((k) => ENTITY_TYPE[k.type])} as text[]), cast(${keys.map((k) => k.uid)} as text[]),
                cast(${keys.map((k) => k.fingerprint)} as text[])) as k(entity_type, uid, fingerprint)
    cross join lateral (select * from push_receipts p
      where p.user_id = ${userId} and p.entity_type = k.entity_type and p.uid = k.uid and p.fingerprint = decode(k.fingerprint, 'hex') limit 1) as r`;
}

/** A stored receipt from its columns (entity type, uid, fingerprint, result). */
export function receiptFromSql(entityType: unknown, uid: unknown, fingerprint: unknown, result: unknown): PushReceipt {
  return { type: recordTypeOfEntity(String(entityType)), uid: String(uid), fingerprint: String(fingerprint), result };
}

/**
 * The INSERT of receipts in one statement, the receipts as one JSON parameter (a fixed text, so one
 * prepared statement whatever the count). A key that already exists is left as it is (its primary
 * key decides).
 */
export function saveReceiptsQuery(userId: number, receipts: readonly PushReceipt[]): RawBuilder<never> {
  const json = JSON.stringify(receipts.map((r) => ({ e: ENTITY_TYPE[r.type], u: r.uid, f: r.fingerprint, r: r.result })));
  return sql<never>`insert into push_receipts (user_id, entity_type, uid, fingerprint, result)
    select cast(${userId} as integer), k.e, k.u, decode(k.f, 'hex'), k.r from jsonb_to_recordset(cast(${json} as jsonb)) as k(e text, u text, f text, r jsonb)
    on conflict do nothing`;
}
