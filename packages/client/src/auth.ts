import { ApiError } from './http/api-error.js';
import type { CalsyncApi, DeviceInfo } from './http/api.js';
import type { TokenSource } from './http/transport.js';
import { META, type LocalState } from './engine/local-state.js';
import type { MetaValue } from './store/local-store.js';
import type { WireSendOtp, WireSignIn } from './wire.js';

/** Sign-in, sign-out and the tokens, as `client.auth`. */
export interface ClientAuth {
  /** Sends a sign-in code by SMS. */
  sendOtp(phone: string, name?: string): Promise<WireSendOtp>;
  /** Signs in with the code and this device, then bootstraps (pull first). */
  verifyOtp(phone: string, code: string): Promise<WireSignIn>;
  /** Signs in with e-mail and password and this device, then bootstraps. */
  login(email: string, password: string): Promise<WireSignIn>;
  /**
   * Ends the session on the server (best effort) and wipes the local store: records, outbox,
   * cursor, tokens, user and the device uid the client generated. Nothing is left in the store.
   */
  logout(): Promise<void>;
  /** The signed-in user, if any. */
  user(): WireSignIn['user'] | null;
  /** The current access token (for a notification stream, say), if signed in. */
  accessToken(): string | undefined;
  /** Calls `listener` when the session ends without a logout (refresh refused, device revoked). */
  onSignedOut(listener: (error: ApiError) => void): () => void;
}

/** What the auth module needs from the client. */
export interface AuthDeps {
  readonly state: LocalState;
  readonly api: () => CalsyncApi;
  readonly device: () => DeviceInfo;
  /** After a sign-in: start the bootstrap round. */
  readonly signedIn: () => Promise<void>;
  /** After the session ended or a logout. */
  readonly signedOut: (error: ApiError | null) => void;
}

/**
 * The auth half of the client, and the token source of its transport: tokens live in the store's
 * metadata; a renewal is single-flight (concurrent 401s share one refresh, so the rotating refresh
 * token is never presented twice) and sends the device uid.
 */
export class AuthModule implements TokenSource, ClientAuth {
  #renewing: Promise<boolean> | null = null;
  readonly #signedOutListeners = new Set<(error: ApiError) => void>();

  constructor(private readonly deps: AuthDeps) {}

  accessToken(): string | undefined {
    return this.deps.state.text(META.accessToken);
  }

  user(): WireSignIn['user'] | null {
    const u = this.deps.state.meta.get(META.user);
    return u && typeof u === 'object' ? (u as unknown as WireSignIn['user']) : null;
  }

  sendOtp(phone: string, name?: string): Promise<WireSendOtp> {
    return this.deps.api().sendOtp(phone, name);
  }

  async verifyOtp(phone: string, code: string): Promise<WireSignIn> {
    const device = this.deps.device();
    return this.#signIn(await this.deps.api().verifyOtp(phone, code, device), device.uid);
  }

  async login(email: string, password: string): Promise<WireSignIn> {
    const device = this.deps.device();
    return this.#signIn(await this.deps.api().login(email, password, device), device.uid);
  }

  async #signIn(result: WireSignIn, deviceUid: string): Promise<WireSignIn> {
    const state = this.deps.state;
    const previous = this.user();
    // Another user's data never stays on the device; the same user's unsent writes do.
    if (previous && previous.id !== result.user.id) await state.wipe();
    await state.commit({
      putMeta: {
        [META.deviceUid]: deviceUid,
        [META.accessToken]: result.accessToken,
        [META.refreshToken]: result.refreshToken,
        [META.user]: result.user as unknown as MetaValue,
      },
    });
    await this.deps.signedIn();
    return result;
  }

  async logout(): Promise<void> {
    if (this.accessToken()) {
      try {
        await this.deps.api().logout();
      } catch {
        // Offline or already ended: the local wipe below is what the user asked for.
      }
    }
    await this.forget();
  }

  /** Wipes the local store after the session ended on purpose (logout, this device revoked). */
  async forget(): Promise<void> {
    await this.deps.state.wipe();
    this.deps.signedOut(null);
  }

  /** Keeps the stored user in step with the server's answer (profile read or change). */
  async rememberUser(user: WireSignIn['user']): Promise<void> {
    if (!this.accessToken()) return;
    await this.deps.state.commit({ putMeta: { [META.user]: user as unknown as MetaValue } });
  }

  renew(): Promise<boolean> {
    this.#renewing ??= this.#renew().finally(() => {
      this.#renewing = null;
    });
    return this.#renewing;
  }

  async #renew(): Promise<boolean> {
    const refreshToken = this.deps.state.text(META.refreshToken);
    if (!refreshToken) return false;
    try {
      const pair = await this.deps.api().refresh(refreshToken, this.deps.device().uid);
      await this.deps.state.commit({ putMeta: { [META.accessToken]: pair.accessToken, [META.refreshToken]: pair.refreshToken } });
      return true;
    } catch (error) {
      if (error instanceof ApiError && !error.transient) return false;
      throw error;
    }
  }

  async sessionEnded(error: ApiError): Promise<void> {
    if (!this.accessToken() && !this.deps.state.text(META.refreshToken)) return;
    // The tokens go; records, outbox and the user stay, so signing in again loses nothing.
    await this.deps.state.commit({ deleteMeta: [META.accessToken, META.refreshToken] });
    this.deps.signedOut(error);
    for (const l of [...this.#signedOutListeners]) l(error);
  }

  onSignedOut(listener: (error: ApiError) => void): () => void {
    this.#signedOutListeners.add(listener);
    return () => this.#signedOutListeners.delete(listener);
  }
}
