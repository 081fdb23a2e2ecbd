import {
  DomainError,
  type AccessIdentity,
  type AuthApi,
  perRecordType,
  checkOccurrenceWindow,
  type ConflictPage,
  type OccurrencePage,
  type ObjectRows,
  type ObjectScope,
  type OccurrenceQuery,
  type ItemResult,
  type LegacyStatsStore,
  type PullResponse,
  type PushChangeset,
  type PushResponse,
  type ResolveResponse,
  type SyncApi,
  type UserSyncStats,
  type WireRecord,
} from '@calsync/domain';

/**
 * A SyncApi that records calls and answers canned, well-formed responses: lets HTTP tests check
 * what the routes pass to the engine without the engine itself.
 */
export class RecordingSyncApi implements SyncApi {
  readonly calls: { method: string; userId: number; arg: unknown }[] = [];
  failWith: Error | null = null;
  /** What `pull` answers as the newest unresolved conflict. */
  newestConflictId: number | null = null;

  async push(userId: number, changeset: PushChangeset): Promise<PushResponse> {
    this.record('push', userId, changeset);
    return {
      ...perRecordType((type): ItemResult[] =>
        (changeset[type] ?? []).map((item, i) => ({ uid: item.uid, status: item.op === 'delete' ? 'deleted' : 'created', id: i + 1, version: String(i + 1) })),
      ),
      conflicts: [],
    };
  }

  async pull(userId: number, query: { cursor?: string; limit?: number }): Promise<PullResponse> {
    this.record('pull', userId, query);
    return { ...perRecordType((): WireRecord[] => []), calendars: [{ uid: 'cal-1', version: '1', deleted: null, name: 'Personal', isDefault: true }], cursorReset: query.cursor === undefined, nextCursor: 'c.1', hasMore: false, newestConflictId: this.newestConflictId };
  }

  async newestVersion(userId: number): Promise<bigint> {
    this.record('newestVersion', userId, null);
    return 0n;
  }

  async occurrences(userId: number, query: OccurrenceQuery): Promise<OccurrencePage> {
    this.record('occurrences', userId, query);
    checkOccurrenceWindow(query);
    return { occurrences: [], truncated: false };
  }

  async readObjects(userId: number, scope: ObjectScope): Promise<ObjectRows> {
    this.record('readObjects', userId, scope);
    return { calendars: [], roots: [], overrides: [], reminders: [], departures: [] };
  }

  async listConflicts(userId: number, query: { afterId?: number; limit?: number }): Promise<ConflictPage> {
    this.record('listConflicts', userId, query);
    return { conflicts: [], hasMore: false, nextAfterId: null };
  }

  async resolveConflict(userId: number, conflictId: number, action: 'restore' | 'dismiss'): Promise<ResolveResponse> {
    this.record('resolveConflict', userId, { conflictId, action });
    if (conflictId === 404) throw new DomainError('NOT_FOUND', 'Conflict not found');
    return {
      conflict: { conflictId, entityType: 'EVENT', entityUid: 'e1', winnerVersion: '5', loserSnapshot: { uid: 'e1', version: '4' }, createdAt: '2026-01-01T00:00:00.000Z', resolvedAt: '2026-01-02T00:00:00.000Z' },
      record: action === 'restore' ? { entityType: 'EVENT', uid: 'e1', version: '6' } : null,
    };
  }

  private record(method: string, userId: number, arg: unknown): void {
    if (this.failWith) throw this.failWith;
    this.calls.push({ method, userId, arg });
  }
}

/** Legacy stats with fixed numbers. */
export class FixedLegacyStats implements LegacyStatsStore {
  async stats(): Promise<UserSyncStats> {
    return { calendars: 1, events: 2, tasks: 0, reminders: 0, unresolvedConflicts: 0, devices: 1, lastSyncTime: null, syncStatus: { SYNCED: 2, PENDING: 0, CONFLICT: 0 } };
  }
  async resetSync(): Promise<number> {
    return 2;
  }
}

/**
 * Stand-in sign-in for HTTP tests of the other routes: the Bearer token `user-<id>` is that user
 * (see `asUser`); any other token, or none, is refused as the real sign-in refuses it (401
 * UNAUTHORIZED through the real auth plugin). The sign-in operations themselves are not part of it.
 */
export class StandInAuth implements AuthApi {
  async authenticateAccess(token: string): Promise<AccessIdentity> {
    const match = /^user-([0-9]+)$/.exec(token);
    if (!match) throw new DomainError('UNAUTHORIZED', 'invalid access token');
    return { userId: Number(match[1]), sessionId: 's', deviceUid: null };
  }

  sendOtp = notHere;
  verifyOtp = notHere;
  login = notHere;
  refresh = notHere;
  logout = notHere;
  me = notHere;
  listDevices = notHere;
  revokeDevice = notHere;
  renameDevice = notHere;
  updateProfile = notHere;
}

async function notHere(): Promise<never> {
  throw new Error('StandInAuth: the sign-in operations are not part of this test');
}

/** The Authorization header that `StandInAuth` takes as user `id`. */
export function asUser(id: number | string): { authorization: string } {
  return { authorization: `Bearer user-${id}` };
}
