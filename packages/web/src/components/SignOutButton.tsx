import { useState } from 'react';
import { useNavigate } from 'react-router';
import { client } from '../client.js';

/** Ends the session on the server and wipes this browser's copy (IndexedDB) through the SDK. */
export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const signOut = async (): Promise<void> => {
    setBusy(true);
    try {
      await client.auth.logout();
      navigate('/calendar', { replace: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="secondary small" onClick={() => void signOut()} disabled={busy}>
      Sign out
    </button>
  );
}
