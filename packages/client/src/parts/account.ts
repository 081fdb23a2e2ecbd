import type { AuthModule } from '../auth.js';
import { META, type LocalState } from '../engine/local-state.js';
import type { CalsyncApi } from '../http/api.js';
import type { SyncClient } from '../sync-client.js';

/** What the account parts need: the state, the API, sign-in, this device's own uid, and the open check. */
export interface AccountDeps {
  readonly state: LocalState;
  readonly api: CalsyncApi;
  readonly auth: AuthModule;
  readonly appDeviceUid: string | undefined;
  readonly ready: () => void;
}

/** `client.devices` and `client.profile`: the account, over the network. */
export function accountParts({ state, api, auth, appDeviceUid, ready }: AccountDeps): Pick<SyncClient, 'devices' | 'profile'> {
  return {
    devices: {
      async list() {
        ready();
        return (await api.devices()).devices;
      },
      async rename(uid, name) {
        ready();
        return (await api.renameDevice(uid, name)).device;
      },
      async revoke(uid) {
        ready();
        const own = state.text(META.deviceUid) ?? appDeviceUid;
        await api.revokeDevice(uid);
        if (uid === own) await auth.forget();
      },
    },
    profile: {
      async get() {
        ready();
        const { user } = await api.me();
        await auth.rememberUser(user);
        return user;
      },
      async update(patch) {
        ready();
        const { user } = await api.updateProfile(patch);
        await auth.rememberUser(user);
        return user;
      },
    },
  };
}
