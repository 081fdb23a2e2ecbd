import { RECORD_TYPES, type RecordType } from '@calsync/domain/rules';
import { ApiError } from '../http/api-error.js';
import type { CalsyncApi } from '../http/api.js';
import { recordKey, type OutboxItem } from '../store/local-store.js';
import type { WireItemResult, WirePushBody } from '../wire.js';
import { fetchNewConflicts, planOwnWrites, wroteVersion, type ClientConflict } from './conflict-feed.js';
import { META, type LocalState } from './local-state.js';
import { hasFreshItems, isPromotion, planPark, planPulled, planResults, planSend, planUnsent, selectBatch } from './outbox.js';
import { planPullPage, planSnapshotEnd } from './pull-apply.js';
import { planRekey } from './rekey.js';
import { conflictsOfAnswer, dismissSettled, planSettled } from './stale-writes.js';
import { uuidv7 } from '../uid.js';

/** What one round needs. */
export interface RoundContext {
  readonly state: LocalState;
  readonly api: CalsyncApi;
  readonly pageSize: number;
  readonly maxAttempts: number;
  /** Items per array in one push (the server refuses more than 1000). */
  readonly maxBatchItems: number;
  readonly now: () => number;
  /** How long a listing waits for another device to settle a conflict its push made (see fetchNewConflicts). */
  readonly settleWaitMs: number;
  /** Conflicts new since the last listing, whichever device's push made them, with this device's side. */
  readonly onConflicts: (conflicts: readonly ClientConflict[]) => void;
}

/** Push requests one round sends at most; what is left goes in the next round. */
const MAX_PUSHES_PER_ROUND = 50;

/** Push-then-pull passes one round makes at most: writes made during a pass get up to two more. */
const PUSH_CYCLES_PER_ROUND = 3;

/**
 * One sync round as the protocol prescribes it: a bootstrap pull first when the device has no
 * cursor (never push before the first pull), then push the outbox (one item per record per
 * request, more requests while answers unblock later items; a pull after a default change when
 * calendar edits wait behind it), then pull every page; what was written meanwhile is pushed and
 * pulled in the same round (at most `PUSH_CYCLES_PER_ROUND` passes).
 */
export async function runRound(ctx: RoundContext): Promise<void> {
  // Never push before the first pull; nor before pulling the demotions an answered default
  // change of this device caused (an earlier round's pull may have failed): a calendar edited or
  // deleted here since would otherwise go out with the version from before the demotion.
  if (ctx.state.text(META.cursor) === undefined || ctx.state.meta.get(META.demotionsUnpulled) === true) await pullAll(ctx);
  // Writes made while the round ran (after its pushes, during its pull) go out in it too, so a
  // `sync()` that joined the round covers the writes made before it was called.
  let passes = 0;
  do {
    for (let i = 0; i < MAX_PUSHES_PER_ROUND; i++) {
      const batch = selectBatch(ctx.state, ctx.maxBatchItems);
      if (batch.length === 0) break;
      await pushBatch(ctx, batch);
      // A default change demoted other calendars on the server: pull their new versions before any
      // other calendar edit goes out (selectBatch held those back).
      if (batch.some(isPromotion) && selectBatch(ctx.state, ctx.maxBatchItems).some((item) => item.type === 'calendars')) await pullAll(ctx);
    }
    // Conflicts of this device's stale pushes that lost nothing (their merges went out above) are
    // dismissed before the pull, so the listing below, and other devices', never show them.
    await dismissSettled(ctx.state, ctx.api);
    await pullAll(ctx);
  } while (++passes < PUSH_CYCLES_PER_ROUND && hasFreshItems(ctx.state));
  // A push of this round made a conflict, or the pull reported an unresolved conflict newer than
  // the feed's mark (another device's push made it): list the new conflicts, so every device hears
  // of them in this round.
  if (ctx.state.meta.get(META.conflictsDue) === true) {
    const fresh = await fetchNewConflicts(ctx.state, ctx.api, ctx.settleWaitMs);
    if (fresh.length > 0) ctx.onConflicts(fresh);
  }
}

/**
 * Whether a pull's answer calls for a conflict listing: when the newest unresolved conflictId it
 * reported is above the feed's mark (the listing returns every unresolved conflict above the
 * mark, so one resolved before anyone listed it is never asked for); for a server that reports
 * none (an older one), when the pull brought records another device wrote (its push may have made
 * one).
 */
function conflictsDueAfterPull(state: LocalState, newest: number | null | undefined, foreign: number): boolean {
  if (newest === undefined) return foreign > 0;
  const mark = state.meta.get(META.conflictsAfterId);
  return newest !== null && (typeof mark !== 'number' || newest > mark);
}

/** Pulls until hasMore is false; the cursor is stored only once the whole pull succeeded. */
export async function pullAll(ctx: RoundContext): Promise<void> {
  let cursor = ctx.state.text(META.cursor);
  // What a full snapshot named, from its first page (cursorReset) on; null for an incremental pull.
  let named: Set<string> | null = null;
  let foreign = 0; // records another device wrote (counted only for a server that reports no conflict id)
  let newest: number | null | undefined; // the newest unresolved conflict the last page reported
  let pageWritten: Promise<void> = Promise.resolve();
  for (;;) {
    const page = await ctx.api.pull(cursor, ctx.pageSize);
    // A server from before this field answers without it (see conflictsDueAfterPull).
    newest = (page as { newestConflictId?: number | null }).newestConflictId;
    if (page.cursorReset) named = new Set();
    if (named) for (const type of RECORD_TYPES) for (const record of page[type]) named.add(recordKey(type, record.uid));
    pageWritten = ctx.state.commit(planPullPage(ctx.state, page));
    if (newest === undefined) for (const type of RECORD_TYPES) for (const r of page[type]) if (!wroteVersion(ctx.state, type, r.uid, r.version)) foreign += 1;
    cursor = page.nextCursor;
    if (!page.hasMore) break;
    await pageWritten;
  }
  // The last page and the pull's end (its cursor) reach the store as one write.
  const endWritten = ctx.state.commit({
    ...planPulled(ctx.state),
    ...(named ? planSnapshotEnd(ctx.state, named) : {}),
    // A listing already due (a push of this round made a conflict) stays due.
    putMeta: { [META.cursor]: cursor, [META.lastSyncAt]: new Date(ctx.now()).toISOString(), ...(conflictsDueAfterPull(ctx.state, newest, foreign) ? { [META.conflictsDue]: true } : {}) },
    deleteMeta: [META.demotionsUnpulled],
  });
  await Promise.all([pageWritten, endWritten]);
}

/** Marks the batch in flight (durably, before it leaves), pushes it, and stores the answers. */
async function pushBatch(ctx: RoundContext, batch: readonly OutboxItem[]): Promise<void> {
  const { write, sent } = planSend(ctx.state, batch);
  await ctx.state.commit(write);
  try {
    await pushSent(ctx, sent);
  } catch (error) {
    // Unknown outcome (no answer) or refused as a whole: every item stays, payload frozen.
    await ctx.state.commit(planUnsent(ctx.state, sent));
    throw error;
  }
}

function bodyOf(items: readonly OutboxItem[]): WirePushBody {
  const body: Partial<Record<RecordType, object[]>> = {};
  for (const item of items) {
    const sent = item.sent!;
    (body[item.type] ??= []).push({ ...sent.fields, uid: item.uid, op: sent.op, baseVersion: sent.baseVersion });
  }
  // The fields were checked by the domain's field tables (checkPut), which generate the wire schema.
  return body as WirePushBody;
}

/**
 * Pushes items already marked in flight. A 413 (or a 400 for the whole body) splits the batch in
 * halves, order kept; one item the server refuses on its own is parked.
 */
async function pushSent(ctx: RoundContext, sent: readonly OutboxItem[]): Promise<void> {
  let data;
  try {
    data = await ctx.api.push(bodyOf(sent));
  } catch (error) {
    const splittable = error instanceof ApiError && (error.kind === 'too-large' || (error.kind === 'rejected' && error.status === 400));
    if (!splittable) throw error;
    if (sent.length > 1) {
      const half = Math.ceil(sent.length / 2);
      await pushSent(ctx, sent.slice(0, half));
      await pushSent(ctx, sent.slice(half));
      return;
    }
    await ctx.state.commit(planPark(ctx.state, sent[0]!, { code: error.code, message: error.message, retryable: false }));
    return;
  }
  const results: WireItemResult[] = [];
  for (const type of RECORD_TYPES) {
    const expected = sent.filter((i) => i.type === type).length;
    const got = data[type] ?? [];
    if (got.length !== expected) throw new ApiError('server', 200, 'BAD_RESPONSE', `push answered ${got.length} ${type} results for ${expected} items`);
    results.push(...got);
  }
  const { write, rekeys } = planResults(ctx.state, sent, results, ctx.maxAttempts);
  // Each plan reads memory, which a commit changes at once; committed back to back, the answer and
  // its bookkeeping reach the store as one write (LocalState joins them).
  const written = [ctx.state.commit(write), ctx.state.commit(planOwnWrites(ctx.state, sent, results, data.conflicts))];
  for (const rekey of rekeys) written.push(ctx.state.commit(planRekey(ctx.state, rekey, () => uuidv7(ctx.now()))));
  await Promise.all(written);
  const conflicts = await conflictsOfAnswer(ctx.api, results, data.conflicts);
  for (const settled of planSettled(ctx.state, sent, results, conflicts)) await ctx.state.commit(settled);
}
