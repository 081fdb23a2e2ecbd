import type {
  AuthStore,
  DeviceInput,
  DeviceRecord,
  NewRefreshToken,
  OtpRecord,
  RefreshTokenRecord,
  SessionRecord,
  SessionRevokeReason,
} from '@calsync/domain';

/**
 * AuthStore in memory. Every method completes its check-and-write without awaiting in between,
 * so it is atomic under the event loop, as the contract requires.
 */
export class InMemoryAuthStore implements AuthStore {
  readonly devices: DeviceRecord[] = [];
  readonly sessions = new Map<string, SessionRecord & { reason: SessionRevokeReason | null }>();
  readonly tokens = new Map<string, RefreshTokenRecord>();
  readonly otps = new Map<string, OtpRecord>();
  readonly sendLog: { phone: string; at: string }[] = [];

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
    for (const s of this.sessions.values()) {
      if (s.userId === userId && s.deviceUid === uid && s.revokedAt === null) this.endSession(s.id, 'device-revoked', now);
    }
    return true;
  }

  async startSession(session: Omit<SessionRecord, 'revokedAt'>, firstToken: NewRefreshToken): Promise<void> {
    for (const s of this.sessions.values()) {
      if (s.userId === session.userId && s.deviceUid === session.deviceUid && s.revokedAt === null) {
        this.endSession(s.id, 'superseded', session.createdAt);
      }
    }
    this.sessions.set(session.id, { ...session, revokedAt: null, reason: null });
    this.tokens.set(firstToken.tokenHash, { ...firstToken, replacedAt: null });
  }

  async findSession(id: string): Promise<SessionRecord | null> {
    const s = this.sessions.get(id);
    return s ? { id: s.id, userId: s.userId, deviceUid: s.deviceUid, createdAt: s.createdAt, revokedAt: s.revokedAt } : null;
  }

  async revokeSession(id: string, reason: SessionRevokeReason, now: string): Promise<void> {
    this.endSession(id, reason, now);
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null> {
    return this.tokens.get(tokenHash) ?? null;
  }

  async rotateRefreshToken(parentHash: string, child: NewRefreshToken, now: string): Promise<boolean> {
    const parent = this.tokens.get(parentHash);
    if (!parent || parent.replacedAt !== null) return false;
    this.tokens.set(parentHash, { ...parent, replacedAt: now });
    this.tokens.set(child.tokenHash, { ...child, replacedAt: null });
    return true;
  }

  async findOtp(phone: string): Promise<OtpRecord | null> {
    return this.otps.get(phone) ?? null;
  }

  async saveOtp(otp: OtpRecord): Promise<void> {
    this.otps.set(otp.phone, { ...otp });
  }

  async deleteOtp(phone: string): Promise<void> {
    this.otps.delete(phone);
  }

  async recordOtpSend(phone: string, at: string): Promise<void> {
    this.sendLog.push({ phone, at });
  }

  async listOtpSendsSince(phone: string, since: string): Promise<string[]> {
    const from = Date.parse(since);
    return this.sendLog
      .filter((s) => s.phone === phone && Date.parse(s.at) >= from)
      .map((s) => s.at)
      .sort((a, b) => Date.parse(a) - Date.parse(b));
  }

  async incrementOtpAttempts(phone: string, codeHmac: string): Promise<number | null> {
    const otp = this.otps.get(phone);
    if (!otp || otp.codeHmac !== codeHmac) return null;
    const next = { ...otp, attempts: otp.attempts + 1 };
    this.otps.set(phone, next);
    return next.attempts;
  }

  async consumeOtp(phone: string, codeHmac: string, now: string, maxAttempts: number): Promise<boolean> {
    const otp = this.otps.get(phone);
    if (!otp || otp.codeHmac !== codeHmac || otp.consumedAt !== null) return false;
    if (Date.parse(otp.expiresAt) <= Date.parse(now) || otp.attempts >= maxAttempts) return false;
    this.otps.set(phone, { ...otp, consumedAt: now });
    return true;
  }

  private endSession(id: string, reason: SessionRevokeReason, now: string): void {
    const s = this.sessions.get(id);
    if (s && s.revokedAt === null) this.sessions.set(id, { ...s, revokedAt: now, reason });
  }
}
