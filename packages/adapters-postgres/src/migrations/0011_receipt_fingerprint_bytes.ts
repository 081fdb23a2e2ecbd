import { sql, type Kysely } from 'kysely';

/**
 * A receipt's fingerprint (sha256 of the pushed item) as its 32 bytes instead of 64 hex digits.
 * The fingerprint is the widest column of the receipts' primary key, and receipts are the largest
 * table (a row per pushed item, kept for RECEIPT_RETENTION): each key entry shrinks by about a
 * third, and so does the index a retention run leaves behind at the size of its largest backlog.
 * Rewrites the table and its primary key once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table push_receipts alter column fingerprint type bytea using decode(fingerprint, 'hex')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table push_receipts alter column fingerprint type text using encode(fingerprint, 'hex')`.execute(db);
}
