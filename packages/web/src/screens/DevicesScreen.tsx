import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import type { WireDevice } from '@calsync/client';
import { API_BASE_URL, client } from '../client.js';
import { errorMessage } from '../errors.js';
import { formatTime } from '../format.js';

/** The devices signed in to this account; revoking one signs it out at once. */
export function DevicesScreen() {
  const [devices, setDevices] = useState<WireDevice[] | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    client.devices
      .list()
      .then((list) => {
        setDevices(list);
        setError('');
      })
      .catch((err: unknown) => setError(navigator.onLine ? errorMessage(err) : 'The device list needs the network.'));
  }, []);
  useEffect(load, [load]);
  const revoke = async (d: WireDevice): Promise<void> => {
    try {
      await client.devices.revoke(d.uid);
      load();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <section aria-labelledby="devices-title">
      <h1 id="devices-title">Devices</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <AppPasswordForm onMade={load} />
      {devices === null ? (
        !error && <p>Loading…</p>
      ) : (
        <div className="table-scroll">
        <table className="devices">
          <caption className="visually-hidden">Devices signed in to this account</caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Platform</th>
              <th scope="col">Signed in</th>
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
                  {d.name ?? d.uid}
                  {d.current && <span className="badge">this device</span>}
                </td>
                <td data-label="Platform">{d.platform}</td>
                <td data-label="Signed in">{formatTime(d.createdAt)}</td>
                <td data-label="Last seen">{formatTime(d.lastSeenAt)}</td>
                <td>
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

/**
 * An app password for a calendar app (Apple Calendar, Thunderbird, DAVx5): shown once, with the
 * server address and the user name to type; it is listed with the devices and revoked like one.
 */
function AppPasswordForm({ onMade }: { onMade: () => void }) {
  const id = useId();
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
      setError(navigator.onLine ? errorMessage(err) : 'An app password needs the network.');
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
