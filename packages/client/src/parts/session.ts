import { AuthModule } from '../auth.js';
import type { SyncClientOptions } from '../client-options.js';
import { META, type LocalState } from '../engine/local-state.js';
import type { ApiError } from '../http/api-error.js';
import { CalsyncApi } from '../http/api.js';
import { Transport } from '../http/transport.js';
import { interopOperations } from '../interop.js';
import { uuidv7 } from '../uid.js';

/** What the session part needs from the rest of the client. */
export interface SessionInput {
  readonly options: SyncClientOptions;
  readonly state: LocalState;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  /** Throws until `open()` has read the store. */
  readonly ready: () => void;
  /** A sign-in (or a session restored) completed. */
  readonly signedIn: () => Promise<void>;
  /** The session ended: by the user (no error) or by the server (the error says why). */
  readonly signedOut: (error: ApiError | null) => void;
}

/** The signed-in side of the client: the device's identity, `auth`, and the HTTP calls made with its tokens. */
export interface Session {
  readonly auth: AuthModule;
  readonly transport: Transport;
  readonly api: CalsyncApi;
  readonly interop: ReturnType<typeof interopOperations>;
}

/**
 * The device uid a sign-in names is the app's own, else the one stored with the session, else a
 * fresh one (stored by the sign-in that uses it, so a signed-out store holds nothing; a sign-out
 * by the user forgets it).
 */
export function sessionPart(input: SessionInput): Session {
  const { options, state, now } = input;
  let freshUid: string | undefined;
  const deviceUid = (): string => {
    input.ready();
    return options.device.uid ?? state.text(META.deviceUid) ?? (freshUid ??= uuidv7(now()));
  };
  const auth: AuthModule = new AuthModule({
    state,
    api: () => api,
    device: () => ({ uid: deviceUid(), platform: options.device.platform, name: options.device.name, ...(options.device.fcmToken !== undefined ? { fcmToken: options.device.fcmToken } : {}) }),
    signedIn: input.signedIn,
    signedOut: (error) => {
      if (!error) freshUid = undefined;
      input.signedOut(error);
    },
  });
  const transport = new Transport(options.baseUrl.replace(/\/$/, ''), input.fetch, auth, now);
  const api = new CalsyncApi(transport);
  return { auth, transport, api, interop: interopOperations(transport) };
}
