import { useId, useState, type FormEvent } from 'react';
import { client } from '../client.js';
import { ErrorNote } from '../components/ErrorNote.js';

/** What a wrong entry means on this screen. */
const SIGN_IN_MESSAGES = {
  VALIDATION_ERROR: 'Enter the phone number with its country code, like +15550000001.',
} as const;

type Step = { kind: 'phone' } | { kind: 'code'; phone: string };

/**
 * Sign-in: a phone number and the code sent to it by SMS, or an e-mail address and password.
 * `sessionEnded`: the server ended this device's session (revoked from another device, or tokens
 * it no longer accepts, as after a restart with new secrets); the screen says so, since nobody
 * here pressed "Sign out".
 */
export function SignInScreen({ sessionEnded = false }: { sessionEnded?: boolean }) {
  const [method, setMethod] = useState<'phone' | 'email'>('phone');
  return (
    <section className="card sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to calsync</h1>
      <p className="hint">Your calendars, events, tasks and reminders on every device, also offline.</p>
      {sessionEnded && (
        <p role="status" className="notice">
          You were signed out on this device, perhaps from another of your devices. Sign in again to continue; nothing
          you changed here is lost.
        </p>
      )}
      <div className="tabs" role="group" aria-label="Sign-in method">
        <button type="button" aria-pressed={method === 'phone'} onClick={() => setMethod('phone')}>
          Phone
        </button>
        <button type="button" aria-pressed={method === 'email'} onClick={() => setMethod('email')}>
          E-mail
        </button>
      </div>
      {method === 'phone' ? <PhoneSignIn /> : <EmailSignIn />}
    </section>
  );
}

function PhoneSignIn() {
  const [step, setStep] = useState<Step>({ kind: 'phone' });
  const [phone, setPhone] = useState('');
  const [name, setName] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const ids = { phone: useId(), name: useId(), code: useId(), error: useId() };

  const run = async (action: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const sendCode = (e: FormEvent): void => {
    e.preventDefault();
    void run(async () => {
      await client.auth.sendOtp(phone.trim(), name.trim() || undefined);
      setStep({ kind: 'code', phone: phone.trim() });
    });
  };
  const verify = (e: FormEvent): void => {
    e.preventDefault();
    if (step.kind !== 'code') return;
    void run(async () => {
      await client.auth.verifyOtp(step.phone, code.trim());
      client.start();
    });
  };

  if (step.kind === 'phone') {
    return (
      <form onSubmit={sendCode} aria-describedby={error !== null ? ids.error : undefined}>
        <label htmlFor={ids.phone}>Phone number</label>
        <input id={ids.phone} type="tel" autoComplete="tel" placeholder="+15550000001" required value={phone} onChange={(e) => setPhone(e.target.value)} />
        <label htmlFor={ids.name}>Your name (optional)</label>
        <input id={ids.name} type="text" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        {error !== null && <ErrorNote id={ids.error} error={error} messages={SIGN_IN_MESSAGES} />}
        <button type="submit" disabled={busy}>
          Send code
        </button>
      </form>
    );
  }
  return (
    <form onSubmit={verify} aria-describedby={error !== null ? ids.error : undefined}>
      <p className="hint">We sent a 6-digit code to {step.phone}.</p>
      <label htmlFor={ids.code}>Code</label>
      <input id={ids.code} type="text" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required value={code} onChange={(e) => setCode(e.target.value)} />
      {error !== null && <ErrorNote id={ids.error} error={error} messages={SIGN_IN_MESSAGES} />}
      <button type="submit" disabled={busy}>
        Sign in
      </button>
      <button type="button" className="link" onClick={() => setStep({ kind: 'phone' })}>
        Use another number
      </button>
    </form>
  );
}

function EmailSignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const ids = { email: useId(), password: useId(), error: useId() };
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    client.auth
      .login(email.trim(), password)
      .then(() => client.start())
      .catch((err: unknown) => setError(err))
      .finally(() => setBusy(false));
  };
  return (
    <form onSubmit={submit} aria-describedby={error !== null ? ids.error : undefined}>
      <label htmlFor={ids.email}>E-mail</label>
      <input id={ids.email} type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <label htmlFor={ids.password}>Password</label>
      <input id={ids.password} type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      {error !== null && <ErrorNote id={ids.error} error={error} messages={SIGN_IN_MESSAGES} />}
      <button type="submit" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}
