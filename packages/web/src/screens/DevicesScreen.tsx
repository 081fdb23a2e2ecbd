import { useId, useState, type FormEvent } from 'react';
import type { WireDevice } from '@calsync/client';
import { API_BASE_URL, client } from '../client.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { errorMessage } from '../errors.js';
import { formatTime } from '../format.js';
import { useOnline, useQuery, useSyncStatus } from '../hooks.js';
import { showToast } from '../toast.js';

/** The devices signed in to this account; revoking one signs it out at once. */
export function DevicesScreen() {
  const status = useSyncStatus();
  // Asked again after each sync round, so "Last seen" moves while the screen is open.
  const query = useQuery(`devices ${status.online} ${status.lastSyncAt ?? ''}`, () => client.devices.list());
  const devices = query.data ?? null;
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const revoke = async (d: WireDevice): Promise<void> => {
    try {
      await client.devices.revoke(d.uid);
      setRevokeError(null);
      showToast({ message: `${d.name ?? d.uid} is signed out. It needs to sign in again to sync.` });
      query.refetch();
    } catch (err) {
      setRevokeError(err);
    }
  };
  const [renaming, setRenaming] = useState<string | null>(null);
  const rename = async (d: WireDevice, name: string): Promise<void> => {
    try {
      await client.devices.rename(d.uid, name);
      setRevokeError(null);
      setRenaming(null);
      query.refetch();
    } catch (err) {
      setRevokeError(err);
    }
  };
  const offline = !status.online;
  return (
    <section aria-labelledby="devices-title">
      <h1 id="devices-title">Devices</h1>
      {offline && <p className="notice">You are offline. The device list needs the network{devices ? '; this is how it was' : ''}.</p>}
      {!offline && query.error !== undefined && <ErrorNote error={query.error} />}
      {revokeError !== null && <ErrorNote error={revokeError} />}
      <AppPasswordForm onMade={query.refetch} />
      {devices === null ? (
        !offline && query.error === undefined && <p>Loading…</p>
      ) : (
        <div className="table-scroll">
        <table className="devices">
          <caption className="visually-hidden">Devices signed in to this account</caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Platform</th>
              <th scope="col">First signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {devices.map((d) => (
              <tr key={d.uid}>
                <td>
                  {renaming === d.uid ? (
                    <RenameForm device={d} onSave={(name) => void rename(d, name)} onCancel={() => setRenaming(null)} />
                  ) : (
                    <>
                      {d.name ?? d.uid}
                      {d.current && <span className="badge">this device</span>}
                    </>
                  )}
                </td>
                <td data-label="Platform">{d.platform}</td>
                <td data-label="First signed in">{formatTime(d.createdAt)}</td>
                <td data-label="Last seen">{formatTime(d.lastSeenAt)}</td>
                <td>
                  {renaming !== d.uid && (
                    <button type="button" className="small" onClick={() => setRenaming(d.uid)} aria-label={`Rename ${d.name ?? d.uid}`}>
                      Rename
                    </button>
                  )}
                  {!d.current && (
                    <button type="button" className="danger small" onClick={() => void revoke(d)} aria-label={`Revoke ${d.name ?? d.uid}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </section>
  );
}

/** The new name of a device, typed in its row; the form empties with the row when saved. */
function RenameForm({ device, onSave, onCancel }: { device: WireDevice; onSave: (name: string) => void; onCancel: () => void }) {
  const id = useId();
  const [name, setName] = useState(device.name ?? '');
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (name.trim()) onSave(name.trim());
  };
  return (
    <form onSubmit={submit} className="inline-form" aria-label={`Rename ${device.name ?? device.uid}`}>
      <label htmlFor={`${id}-name`}>New name</label>
      <input id={`${id}-name`} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      <button type="submit">Save name</button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/**
 * An app password for a calendar app (Apple Calendar, Thunderbird, DAVx5): shown once, with the
 * server address and the user name to type; it is listed with the devices and revoked like one.
 */
function AppPasswordForm({ onMade }: { onMade: () => void }) {
  const id = useId();
  const online = useOnline();
  const [name, setName] = useState('');
  const [made, setMade] = useState<{ name: string; password: string } | null>(null);
  const [error, setError] = useState('');
  const create = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (!name.trim()) return;
    try {
      const result = await client.appPasswords.create(name.trim());
      setMade({ name: name.trim(), password: result.password });
      setName('');
      setError('');
      onMade();
    } catch (err) {
      setError(online ? errorMessage(err) : 'An app password needs the network.');
    }
  };
  const user = client.auth.user();
  return (
    <section aria-labelledby={`${id}-title`} className="app-passwords">
      <h2 id={`${id}-title`}>Calendar apps (CalDAV)</h2>
      <form onSubmit={(e) => void create(e)} className="inline-form" aria-label="New app password">
        <label htmlFor={`${id}-name`}>App name</label>
        <input id={`${id}-name`} required maxLength={100} placeholder="Thunderbird on the laptop" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit">Create app password</button>
      </form>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {made && (
        <dl className="app-password" aria-label={`App password for ${made.name}`}>
          <dt>Server</dt>
          <dd>
            <code>{API_BASE_URL}/dav/</code>
          </dd>
          <dt>User name</dt>
          <dd>
            <code>{user?.phone ?? user?.email ?? ''}</code>
          </dd>
          <dt>Password (shown once)</dt>
          <dd>
            <code>{made.password}</code>
          </dd>
        </dl>
      )}
    </section>
  );
}
