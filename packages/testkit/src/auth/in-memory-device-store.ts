import type { DeviceInput, DeviceRecord, DeviceStore } from '@calsync/domain';
import type { InMemorySessionStore } from './in-memory-session-store.js';

/**
 * DeviceStore in memory. Revoking a device ends its families in the session store it is given,
 * in the same turn of the event loop (no await in between): the contract's one transaction.
 */
export class InMemoryDeviceStore implements DeviceStore {
  readonly devices: DeviceRecord[] = [];
  /** App password hashes by "userId/uid". */
  readonly #appPasswords = new Map<string, string>();

  constructor(private readonly sessions: InMemorySessionStore) {}

  async upsertDevice(userId: number, input: DeviceInput, now: string): Promise<DeviceRecord> {
    const i = this.devices.findIndex((d) => d.userId === userId && d.uid === input.uid);
    const old = i >= 0 ? this.devices[i] : undefined;
    const device: DeviceRecord = {
      userId,
      uid: input.uid,
      platform: input.platform ?? old?.platform ?? '',
      name: input.name ?? old?.name ?? '',
      fcmToken: input.fcmToken !== undefined ? input.fcmToken : (old?.fcmToken ?? null),
      createdAt: old?.createdAt ?? now,
      lastSeenAt: now,
      revokedAt: null,
    };
    if (i >= 0) this.devices[i] = device;
    else this.devices.push(device);
    return device;
  }

  async listActiveDevices(userId: number): Promise<DeviceRecord[]> {
    return this.devices.filter((d) => d.userId === userId && d.revokedAt === null);
  }

  async renameDevice(userId: number, uid: string, name: string): Promise<DeviceRecord | null> {
    const i = this.devices.findIndex((d) => d.userId === userId && d.uid === uid && d.revokedAt === null);
    const d = this.devices[i];
    if (!d) return null;
    this.devices[i] = { ...d, name };
    return this.devices[i]!;
  }

  async touchDevice(userId: number, uid: string, now: string): Promise<void> {
    const i = this.devices.findIndex((d) => d.userId === userId && d.uid === uid);
    const d = this.devices[i];
    if (d) this.devices[i] = { ...d, lastSeenAt: now };
  }

  async clearFcmToken(userId: number, uid: string, token: string): Promise<void> {
    const i = this.devices.findIndex((d) => d.userId === userId && d.uid === uid && d.fcmToken === token);
    const d = this.devices[i];
    if (d) this.devices[i] = { ...d, fcmToken: null };
  }

  async revokeDevice(userId: number, uid: string, now: string): Promise<boolean> {
    const i = this.devices.findIndex((d) => d.userId === userId && d.uid === uid && d.revokedAt === null);
    const d = this.devices[i];
    if (!d) return false;
    this.devices[i] = { ...d, revokedAt: now };
    this.#appPasswords.delete(`${userId}/${uid}`);
    this.sessions.endDeviceFamilies(userId, uid, now);
    return true;
  }

  async setAppPassword(userId: number, uid: string, passwordHash: string): Promise<void> {
    this.#appPasswords.set(`${userId}/${uid}`, passwordHash);
  }

  async findByAppPassword(passwordHash: string): Promise<DeviceRecord | null> {
    for (const [key, hash] of this.#appPasswords) {
      if (hash !== passwordHash) continue;
      const device = this.devices.find((d) => `${d.userId}/${d.uid}` === key && d.revokedAt === null);
      if (device) return device;
    }
    return null;
  }
}
