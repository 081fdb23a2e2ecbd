import { CursorCodec, RECORD_TYPES, type RecordType, type SyncStore, type SyncUnitOfWork } from '@calsync/domain';
import { recordTypeOfEntity } from '../../src/conflict-mapping.js';

/** A sequence the engine draws from: versions, each record type's row ids, conflict ids. */
type Kind = 'version' | RecordType | 'conflict';

/**
 * The versions and ids a store handed out to the engine (`reserve`'s answers), in units that
 * committed. Versions and ids are opaque increasing numbers: the protocol promises their order,
 * not their values, and a store may draw values it never hands out (the SQL store draws a push's
 * likely reservation with its prefetch, `SyncUnitOfWork.prefetch`'s `ahead`). So the model test
 * compares each system's numbers by their place among the numbers that system handed out: the
 * canonical form of a value is how many handed-out values of its sequence are at or below it
 * (its rank when it was handed out; for a read bound, how many versions lie at or below it).
 */
export class DrawnNumbers {
  readonly #handedOut = new Map<Kind, bigint[]>();

  /** `store`, recording what each unit's `reserve` answers once that unit committed. */
  recording<S extends SyncStore>(store: S): S {
    const record = (drawn: Map<Kind, bigint[]>): void => {
      for (const [kind, values] of drawn) {
        const list = this.#list(kind);
        list.push(...values);
        list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      }
    };
    return new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'inUserTransaction') {
          // The store's own members, called on the store itself (stores keep private state).
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async <T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> => {
          const drawn = new Map<Kind, bigint[]>();
          const out = await target.inUserTransaction(userId, (uow) => work(recordingUnit(uow, drawn)));
          record(drawn);
          return out;
        };
      },
    });
  }

  /** The canonical form of `value` in sequence `kind`. */
  canonical(kind: Kind, value: bigint | number | string): number {
    const v = BigInt(value);
    return this.#list(kind).filter((x) => x <= v).length;
  }

  /** The value this system handed out at canonical place `place` of `kind`. */
  valueAt(kind: Kind, place: number): bigint {
    const value = this.#list(kind)[place - 1];
    if (value === undefined) throw new Error(`no ${kind} handed out at place ${place}`);
    return value;
  }

  #list(kind: Kind): bigint[] {
    let list = this.#handedOut.get(kind);
    if (list === undefined) this.#handedOut.set(kind, (list = []));
    return list;
  }
}

function recordingUnit(uow: SyncUnitOfWork, drawn: Map<Kind, bigint[]>): SyncUnitOfWork {
  const add = (kind: Kind, values: readonly (bigint | number)[]): void => {
    drawn.set(kind, [...(drawn.get(kind) ?? []), ...values.map((v) => BigInt(v))]);
  };
  return new Proxy(uow, {
    get(target, property, receiver) {
      if (property !== 'reserve') {
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (request: Parameters<SyncUnitOfWork['reserve']>[0]) => {
        const reserved = await target.reserve(request);
        add('version', reserved.versions);
        for (const type of RECORD_TYPES) add(type, reserved.rowIds[type]);
        add('conflict', reserved.conflictIds);
        return reserved;
      };
    },
  });
}

const VERSION_KEYS = new Set(['version', 'winnerVersion']);
const CONFLICT_KEYS = new Set(['conflictId', 'nextAfterId', 'newestConflictId']);

/**
 * `answer` with every version, row id and conflict id in its canonical form (`DrawnNumbers`), and
 * a pull cursor as its canonical watermarks. A row id's type comes from the record list it is in,
 * a row's `type`, or a conflict's `entityType`.
 */
export function canonicalAnswer(answer: unknown, numbers: DrawnNumbers, codec: CursorCodec, userId: number): unknown {
  const walk = (value: unknown, type: RecordType | null): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, type));
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    const own: RecordType | null =
      typeof object.type === 'string' && (RECORD_TYPES as readonly string[]).includes(object.type)
        ? (object.type as RecordType)
        : typeof object.entityType === 'string'
          ? recordTypeOfEntity(object.entityType)
          : type;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(object)) {
      if (v === null || v === undefined) out[key] = v;
      else if (VERSION_KEYS.has(key)) out[key] = `v#${numbers.canonical('version', v as string)}`;
      else if (CONFLICT_KEYS.has(key)) out[key] = `c#${numbers.canonical('conflict', v as number)}`;
      else if (key === 'id' && own !== null) out[key] = `${own}#${numbers.canonical(own, v as number)}`;
      else if (key === 'nextCursor') out[key] = canonicalCursor(v as string, numbers, codec, userId);
      else if ((RECORD_TYPES as readonly string[]).includes(key)) out[key] = walk(v, key as RecordType);
      else out[key] = walk(v, own);
    }
    return out;
  };
  return walk(answer, null);
}

function canonicalCursor(cursor: string, numbers: DrawnNumbers, codec: CursorCodec, userId: number): unknown {
  const { reset, watermarks } = codec.decode(cursor, userId);
  return { reset, watermarks: Object.fromEntries(RECORD_TYPES.map((type) => [type, numbers.canonical('version', watermarks[type])])) };
}
