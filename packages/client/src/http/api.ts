import type { Transport } from './transport.js';
import type {
  WireConflictPage,
  WireDeviceList,
  WireDeviceResult,
  WireLogout,
  WireMe,
  WireProfileUpdate,
  WireRevoke,
  WirePullResponse,
  WirePushBody,
  WirePushResponse,
  WireResolveResponse,
  WireSendOtp,
  WireSignIn,
  WireTokenPair,
} from '../wire.js';

/** The device a client names when it signs in. */
export interface DeviceInfo {
  readonly uid: string;
  readonly platform?: string;
  readonly name?: string;
  readonly fcmToken?: string | null;
}

/** The API's routes as typed calls; one method per route the client uses. */
export class CalsyncApi {
  constructor(private readonly transport: Transport) {}

  sendOtp(phone: string, name?: string): Promise<WireSendOtp> {
    return this.transport.send({ method: 'POST', path: '/api/auth/send-otp', body: name === undefined ? { phone } : { phone, name }, auth: false });
  }

  verifyOtp(phone: string, otp: string, device: DeviceInfo): Promise<WireSignIn> {
    return this.transport.send({ method: 'POST', path: '/api/auth/verify-otp', body: { phone, otp, device }, auth: false });
  }

  login(email: string, password: string, device: DeviceInfo): Promise<WireSignIn> {
    return this.transport.send({ method: 'POST', path: '/api/auth/login', body: { email, password, device }, auth: false });
  }

  refresh(refreshToken: string, deviceUid: string): Promise<WireTokenPair> {
    return this.transport.send({ method: 'POST', path: '/api/auth/refresh', body: { refreshToken, deviceUid }, auth: false });
  }

  logout(): Promise<WireLogout> {
    return this.transport.send({ method: 'POST', path: '/api/auth/logout', auth: true });
  }

  devices(): Promise<WireDeviceList> {
    return this.transport.send({ method: 'GET', path: '/api/auth/devices', auth: true });
  }

  revokeDevice(uid: string): Promise<WireRevoke> {
    return this.transport.send({ method: 'DELETE', path: `/api/auth/devices/${encodeURIComponent(uid)}`, auth: true });
  }

  renameDevice(uid: string, name: string): Promise<WireDeviceResult> {
    return this.transport.send({ method: 'PATCH', path: `/api/auth/devices/${encodeURIComponent(uid)}`, body: { name }, auth: true });
  }

  me(): Promise<WireMe> {
    return this.transport.send({ method: 'GET', path: '/api/auth/me', auth: true });
  }

  updateProfile(patch: WireProfileUpdate): Promise<WireMe> {
    return this.transport.send({ method: 'PATCH', path: '/api/users/me', body: patch, auth: true });
  }

  push(body: WirePushBody): Promise<WirePushResponse> {
    return this.transport.send({ method: 'POST', path: '/api/sync/push', body, auth: true });
  }

  pull(cursor: string | undefined, limit: number): Promise<WirePullResponse> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor !== undefined) query.set('cursor', cursor);
    return this.transport.send({ method: 'GET', path: `/api/sync/changes?${query}`, auth: true });
  }

  conflicts(afterId: number | undefined, limit: number): Promise<WireConflictPage> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (afterId !== undefined) query.set('afterId', String(afterId));
    return this.transport.send({ method: 'GET', path: `/api/sync/conflicts?${query}`, auth: true });
  }

  resolve(conflictId: number, action: 'restore' | 'dismiss'): Promise<WireResolveResponse> {
    return this.transport.send({ method: 'POST', path: `/api/sync/conflicts/${conflictId}/resolve`, body: { action }, auth: true });
  }
}
