import { useCallback, useEffect, useState } from 'react';
import type { WireDevice } from '@calsync/client';
import { client } from '../client.js';
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
      {devices === null ? (
        !error && <p>Loading…</p>
      ) : (
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
                <td>{d.platform}</td>
                <td>{formatTime(d.createdAt)}</td>
                <td>{formatTime(d.lastSeenAt)}</td>
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
      )}
    </section>
  );
}
