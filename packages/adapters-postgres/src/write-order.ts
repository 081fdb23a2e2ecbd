import { isLiveDefaultCalendar, type RowWrite } from '@calsync/domain';

const makesLiveDefault = (write: RowWrite): boolean => isLiveDefaultCalendar(write.row);

/**
 * Indexes of `writes` in an order the partial unique index (one live default calendar per user)
 * accepts: calendar updates that leave their row not a live default move ahead of the first write
 * that makes one, unless their uid occurs twice in the batch (then the given order is kept).
 * Everything else keeps its order.
 */
export function orderForDefaultCalendar(writes: readonly RowWrite[]): number[] {
  const indexes = writes.map((_, i) => i);
  const firstPromotion = writes.findIndex(makesLiveDefault);
  if (firstPromotion < 0) return indexes;
  const uidCounts = new Map<string, number>();
  for (const w of writes) {
    if (w.row.type === 'calendars') uidCounts.set(w.row.uid, (uidCounts.get(w.row.uid) ?? 0) + 1);
  }
  const movable = (i: number) => {
    const w = writes[i]!;
    return i > firstPromotion && w.kind === 'update' && w.row.type === 'calendars' && !makesLiveDefault(w) && uidCounts.get(w.row.uid) === 1;
  };
  const moved = indexes.filter(movable);
  const rest = indexes.filter((i) => !movable(i));
  return [...rest.slice(0, firstPromotion), ...moved, ...rest.slice(firstPromotion)];
}
