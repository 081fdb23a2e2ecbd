/**
 * Messages a person can act on, by the error code the SDK carries (the API's envelope code,
 * NETWORK_ERROR when there was no answer, or a local validation code). The raw code goes only in a
 * details line (see ErrorNote), never in the message itself.
 */
const MESSAGES: Readonly<Record<string, string>> = {
  NETWORK_ERROR: 'calsync could not reach the server. Check the connection and try again.',
  VALIDATION_ERROR: 'Something in the form is not in the expected form. Check it and try again.',
  OTP_INVALID: 'That code is not right. Check the SMS and type the 6 digits again.',
  OTP_EXPIRED: 'That code has expired. Ask for a new one.',
  OTP_ATTEMPTS_EXCEEDED: 'Too many wrong codes. Ask for a new one.',
  OTP_RESEND_TOO_SOON: 'A code was sent a moment ago. Wait a little before asking for another.',
  SMS_BUDGET_EXCEEDED: 'Too many codes were sent to this number. Try again in an hour.',
  SMS_FAILED: 'The SMS could not be sent. Check the number and try again.',
  INVALID_CREDENTIALS: 'That e-mail address and password do not match.',
  EMAIL_TAKEN: 'There is already an account with that e-mail address.',
  RATE_LIMITED: 'Too many requests in a short time. Wait a minute and try again.',
  UNAUTHORIZED: 'You are signed out. Sign in again to continue.',
  TOKEN_EXPIRED: 'You are signed out. Sign in again to continue.',
  REFRESH_INVALID: 'You are signed out. Sign in again to continue.',
  NOT_FOUND: 'That is no longer there; it may have been removed on another device.',
  CONFLICT_RESOLVED: 'This conflict was already decided, perhaps on another device.',
  DATABASE_UNAVAILABLE: 'The server is having trouble. Your changes are kept here and sent later.',
  INTERNAL: 'The server is having trouble. Try again in a moment.',
  NOT_READY: 'The server is starting. Try again in a moment.',
  PAYLOAD_TOO_LARGE: 'That is too large to send.',
  UNKNOWN_REFERENCE: 'It refers to something that is not on the server (yet). It is sent again after the next sync.',
  INVALID_RRULE: 'The repeat rule is not one calsync understands.',
  INVALID_FIELD: 'One of the values is not allowed. Check the form.',
  INVALID_UID: 'That record has a name calsync cannot use.',
};

/** The code of an error the SDK threw, when it carries one. */
export function errorCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code ? code : null;
}

/** A message a person can act on, for any error the SDK threw. */
export function errorMessage(err: unknown): string {
  const code = errorCode(err);
  if (code && MESSAGES[code]) return MESSAGES[code];
  // fetch's own failure (no answer at all) carries no code.
  if (code === null && err instanceof TypeError) return MESSAGES.NETWORK_ERROR as string;
  return 'Something went wrong. Try again; if it keeps happening, the details below help.';
}

/**
 * Runs a save the SDK may refuse (it checks every write before it queues it): the refusal goes to
 * `setError`, for an ErrorNote, and the answer is false, so the form keeps what was typed; a save
 * that went through clears the error and answers true.
 */
export async function saved(save: () => Promise<unknown>, setError: (error: unknown) => void): Promise<boolean> {
  try {
    await save();
  } catch (error) {
    setError(error);
    return false;
  }
  setError(null);
  return true;
}
