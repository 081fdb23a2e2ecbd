import type { Redis } from 'ioredis';

/** One stream's hold on one of its user's slots. */
export interface StreamLease {
  readonly userId: number;
  /** Unique per stream (across nodes). */
  readonly id: string;
}

/**
 * The per-user stream slots (STREAM_MAX_PER_USER), counted over every node that shares the store.
 * Guarantees (checked by the contract in stream-leases.test.ts, for every adapter):
 * - `acquire` takes a slot only while fewer than `max` of the user's slots are held by anyone
 *   sharing the store, atomically (concurrent acquires never overshoot);
 * - `release` frees the slot at once and is idempotent;
 * - a slot not renewed within the store's lease (its node died) is free again after it; `renew`
 *   keeps held slots alive.
 */
export interface StreamLeases {
  acquire(lease: StreamLease, max: number): Promise<boolean>;
  release(lease: StreamLease): Promise<void>;
  renew(leases: readonly StreamLease[]): Promise<void>;
  /** How often `renew` must be called for held slots to stay held. */
  readonly renewEveryMs: number;
}

/** Slots of one node, in memory (no REDIS_URL): the cap is per node. Nothing to renew: the process holds them. */
export class InMemoryStreamLeases implements StreamLeases {
  readonly #held = new Map<number, Set<string>>();
  readonly renewEveryMs = 0;

  async acquire({ userId, id }: StreamLease, max: number): Promise<boolean> {
    const mine = this.#held.get(userId) ?? new Set<string>();
    if (mine.size >= max && !mine.has(id)) return false;
    mine.add(id);
    this.#held.set(userId, mine);
    return true;
  }

  async release({ userId, id }: StreamLease): Promise<void> {
    const mine = this.#held.get(userId);
    if (!mine?.delete(id)) return;
    if (mine.size === 0) this.#held.delete(userId);
  }

  async renew(): Promise<void> {}
}

/**
 * Takes a slot: drops the user's expired leases, then adds this one (score: its expiry in ms of
 * Redis's own clock, so nodes' clocks do not matter) if fewer than `max` remain.
 * KEYS[1] the user's sorted set; ARGV max, lease ms, id.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[3]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1`;

/** Moves held leases' expiry forward (only those still present). KEYS the users' sets; ARGV lease ms, then one id per key. */
const RENEW = `
local t = redis.call('TIME')
local expiry = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', expiry, ARGV[i + 1])
  redis.call('PEXPIRE', key, tonumber(ARGV[1]))
end
return 1`;

/**
 * Slots in Redis (REDIS_URL, the client the rate limit shares counters through): one sorted set
 * per user, members the streams, scores their lease expiry. A node renews its streams' leases every
 * third of the lease, so the slots of a node that died free themselves after one lease.
 */
export class RedisStreamLeases implements StreamLeases {
  readonly renewEveryMs: number;

  constructor(
    private readonly redis: Pick<Redis, 'eval' | 'zrem'>,
    private readonly leaseMs = 60_000,
  ) {
    this.renewEveryMs = Math.max(1, Math.floor(leaseMs / 3));
  }

  async acquire({ userId, id }: StreamLease, max: number): Promise<boolean> {
    return (await this.redis.eval(ACQUIRE, 1, keyOf(userId), max, this.leaseMs, id)) === 1;
  }

  async release({ userId, id }: StreamLease): Promise<void> {
    await this.redis.zrem(keyOf(userId), id);
  }

  async renew(leases: readonly StreamLease[]): Promise<void> {
    if (leases.length === 0) return;
    await this.redis.eval(RENEW, leases.length, ...leases.map((l) => keyOf(l.userId)), this.leaseMs, ...leases.map((l) => l.id));
  }
}

const keyOf = (userId: number): string => `calsync-streams:${userId}`;
