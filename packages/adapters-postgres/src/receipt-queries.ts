import { ENTITY_TYPE, type PushReceipt, type ReceiptKey } from '@calsync/domain';
import { fixedStatement, type Statement } from './batch-connection.js';
import { recordTypeOfEntity } from './conflict-mapping.js';

/**
 * `from … r`: the user's receipts matching the keys (three key arrays, parameters `$from` to
 * `$from+2`, as `receiptKeyArrays` makes them; the user is `$user`), one probe of the full primary
 * key (user_id, entity_type, uid, fingerprint) per key: the LIMIT 1 subquery (the key is unique, so
 * it changes no answer) cannot be flattened into a join that reads the user's receipts by user_id
 * alone, whatever plan the statement gets. Fingerprints are stored as their bytes (migration 0011)
 * and travel as hex. Plain text, made once with the push prefetch that selects from it.
 */
export function matchingReceiptsText(user: number, from: number): string {
  return `from unnest(cast($${from} as text[]), cast($${from + 1} as text[]), cast($${from + 2} as text[])) as k(entity_type, uid, fingerprint)
    cross join lateral (select * from push_receipts p
      where p.user_id = $${user} and p.entity_type = k.entity_type and p.uid = k.uid and p.fingerprint = decode(k.fingerprint, 'hex') limit 1) as r`;
}

/** The parameters of `matchingReceiptsText`: the keys' entity types, uids and fingerprints. */
export function receiptKeyArrays(keys: readonly ReceiptKey[]): [string[], string[], string[]] {
  return [keys.map((k) => ENTITY_TYPE[k.type]), keys.map((k) => k.uid), keys.map((k) => k.fingerprint)];
}

/** A stored receipt from its columns (entity type, uid, fingerprint, result). */
export function receiptFromSql(entityType: unknown, uid: unknown, fingerprint: unknown, result: unknown): PushReceipt {
  return { type: recordTypeOfEntity(String(entityType)), uid: String(uid), fingerprint: String(fingerprint), result };
}

const SAVE_RECEIPTS_TEXT = `insert into push_receipts (user_id, entity_type, uid, fingerprint, result)
    select cast($1 as integer), k.e, k.u, decode(k.f, 'hex'), k.r from jsonb_to_recordset(cast($2 as jsonb)) as k(e text, u text, f text, r jsonb)
    on conflict do nothing`;

/**
 * The INSERT of receipts in one statement, the receipts as one JSON parameter (a fixed text, so one
 * prepared statement whatever the count). A key that already exists is left as it is (its primary
 * key decides).
 */
export function saveReceiptsQuery(userId: number, receipts: readonly PushReceipt[]): Statement<never> {
  const json = JSON.stringify(receipts.map((r) => ({ e: ENTITY_TYPE[r.type], u: r.uid, f: r.fingerprint, r: r.result })));
  return fixedStatement(SAVE_RECEIPTS_TEXT, [userId, json]);
}
