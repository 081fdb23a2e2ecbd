import { readFile } from 'node:fs/promises';

/** The parts of a Google service-account key file the FCM sender uses. */
export interface ServiceAccount {
  readonly clientEmail: string;
  readonly privateKey: string;
  /** The key file's own token endpoint, when it names one. */
  readonly tokenUri?: string;
}

/**
 * Reads FCM_CREDENTIALS: the service-account JSON itself (it starts with `{`) or a path to the file.
 * Throws an Error with a one-line message (never the key) when it is unreadable or incomplete.
 */
export async function loadServiceAccount(credentials: string): Promise<ServiceAccount> {
  const text = credentials.trimStart().startsWith('{') ? credentials : await readKeyFile(credentials);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('FCM_CREDENTIALS is not valid JSON');
  }
  const key = (json ?? {}) as Record<string, unknown>;
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string') {
    throw new Error('FCM_CREDENTIALS must be a service-account key with client_email and private_key');
  }
  return {
    clientEmail: key.client_email,
    privateKey: key.private_key,
    ...(typeof key.token_uri === 'string' ? { tokenUri: key.token_uri } : {}),
  };
}

async function readKeyFile(path: string): Promise<string> {
  try {
    return await readFile(path.trim(), 'utf8');
  } catch (error) {
    throw new Error(`FCM_CREDENTIALS names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
