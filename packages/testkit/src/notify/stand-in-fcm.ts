import { createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The audience a Google service-account assertion must name. */
const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/** One accepted message, as FCM would deliver it. */
export interface DeliveredMessage {
  readonly token: string;
  readonly data: Readonly<Record<string, string>>;
  readonly message: Readonly<Record<string, unknown>>;
}

/** How the stand-in answers sends to one registration token. */
export type TokenBehaviour =
  | { readonly kind: 'unregistered' }
  | { readonly kind: 'invalid' }
  /** The first `failures` sends answer `status` (429 or 5xx) with Retry-After `retryAfter` seconds, then 200. */
  | { readonly kind: 'flaky'; readonly failures: number; readonly status: number; readonly retryAfter?: number };

/** A running stand-in for Google's token endpoint and the FCM HTTP v1 send endpoint. */
export interface StandInFcm {
  /** Base URL to use as FCM_ENDPOINT. */
  readonly endpoint: string;
  /** URL to use as FCM_TOKEN_URL (also the key's token_uri). */
  readonly tokenUrl: string;
  readonly projectId: string;
  /** A service-account key (JSON text) whose signatures this stand-in checks. */
  readonly serviceAccountJson: string;
  /** Successful token exchanges. */
  readonly exchanges: { readonly iss: string; readonly scope: string }[];
  /** Messages accepted (200). */
  readonly delivered: DeliveredMessage[];
  /** Every send attempt, accepted or not (token and the status answered). */
  readonly attempts: { readonly token: string; readonly status: number }[];
  /** Requests refused for a malformed exchange or message, with the reason (a test expects none). */
  readonly rejected: string[];
  behave(token: string, behaviour: TokenBehaviour): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function googleError(status: number, rpcStatus: string, message: string, details: unknown[] = []): unknown {
  return { error: { code: status, message, status: rpcStatus, details } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const b64json = (part: string | undefined): Record<string, unknown> => JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

/**
 * A real local HTTP server on port 0 playing Google's OAuth2 token endpoint and FCM's HTTP v1
 * `messages:send`: it checks the service-account JWT assertion (RS256 signature with the key it
 * issued, issuer, scope, audience, expiry), the Bearer token it handed out, and the message shape
 * (token, data with string values; a sync data message with its collapse key and APNs background
 * headers and no notification; a reminder or conflict alert with a visible notification); it answers per-token
 * scripted errors exactly as FCM documents them.
 */
export async function startStandInFcm(projectId = 'calsync-test'): Promise<StandInFcm> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' });
  const clientEmail = `push@${projectId}.iam.gserviceaccount.com`;
  const issued = new Set<string>();
  const behaviours = new Map<string, TokenBehaviour & { seen?: number }>();
  const fcm = {
    exchanges: [] as StandInFcm['exchanges'][number][],
    delivered: [] as DeliveredMessage[],
    attempts: [] as StandInFcm['attempts'][number][],
    rejected: [] as string[],
  };

  const exchange = (body: string, res: ServerResponse): void => {
    const form = new URLSearchParams(body);
    const assertion = form.get('assertion') ?? '';
    const [h, p, sig] = assertion.split('.');
    try {
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw new Error('grant_type');
      const header = b64json(h);
      if (header.alg !== 'RS256') throw new Error('alg');
      const ok = verify('RSA-SHA256', Buffer.from(`${h}.${p}`), createPublicKey(publicPem), Buffer.from(sig ?? '', 'base64url'));
      if (!ok) throw new Error('signature');
      const claims = b64json(p);
      const now = Date.now() / 1000;
      if (claims.iss !== clientEmail) throw new Error('iss');
      if (claims.aud !== GOOGLE_TOKEN_AUDIENCE) throw new Error('aud');
      if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(FCM_SCOPE)) throw new Error('scope');
      if (typeof claims.exp !== 'number' || claims.exp < now || typeof claims.iat !== 'number' || claims.iat > now + 60) throw new Error('exp/iat');
      fcm.exchanges.push({ iss: claims.iss, scope: claims.scope });
    } catch (e) {
      fcm.rejected.push(`token exchange: ${(e as Error).message}`);
      send(res, 400, { error: 'invalid_grant', error_description: 'bad assertion' });
      return;
    }
    const accessToken = `ya29.stand-in-${randomBytes(8).toString('hex')}`;
    issued.add(accessToken);
    send(res, 200, { access_token: accessToken, expires_in: 3600, token_type: 'Bearer' });
  };

  /** A visible alert (reminder, conflict): data naming what it is about, a notification, alert-type APNs headers. */
  const alertProblem = (m: Record<string, unknown>, data: Record<string, unknown>): string | null => {
    const needed = data.type === 'reminder' ? ['reminderUid', 'occurrenceStart', 'title', 'dueAt'] : ['conflictId', 'entityType', 'entityUid'];
    if (needed.some((k) => typeof data[k] !== 'string' || data[k] === '')) return 'message.data';
    const notification = m.notification as { title?: unknown; body?: unknown } | undefined;
    if (typeof notification?.title !== 'string' || notification.title === '' || typeof notification.body !== 'string') return 'message.notification';
    const apns = m.apns as { headers?: Record<string, unknown> } | undefined;
    if (apns?.headers?.['apns-push-type'] !== 'alert') return 'message.apns.headers';
    return null;
  };

  const messageProblem = (m: Record<string, unknown>): string | null => {
    const data = m.data as Record<string, unknown> | undefined;
    if (typeof m.token !== 'string' || m.token === '') return 'message.token';
    if (!data || Object.values(data).some((v) => typeof v !== 'string')) return 'message.data must map to strings';
    if (data.type === 'reminder' || data.type === 'conflict') return alertProblem(m, data);
    if (data.type !== 'sync' || typeof data.version !== 'string' || !/^[0-9]+$/.test(data.version)) return 'message.data';
    if ((m.android as { collapse_key?: unknown } | undefined)?.collapse_key !== 'sync') return 'message.android.collapse_key';
    const apns = m.apns as { headers?: Record<string, unknown>; payload?: { aps?: Record<string, unknown> } } | undefined;
    if (apns?.headers?.['apns-push-type'] !== 'background' || apns.headers['apns-priority'] !== '5') return 'message.apns.headers';
    if (apns.payload?.aps?.['content-available'] !== 1) return 'message.apns.payload';
    if ('notification' in m) return 'a data message has no notification';
    return null;
  };

  const sendMessage = (req: IncomingMessage, body: string, res: ServerResponse): void => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !issued.has(bearer)) {
      fcm.rejected.push('send without a valid Bearer token');
      send(res, 401, googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'));
      return;
    }
    let message: Record<string, unknown>;
    try {
      message = (JSON.parse(body) as { message: Record<string, unknown> }).message;
    } catch {
      message = {};
    }
    const problem = messageProblem(message ?? {});
    if (problem !== null) {
      fcm.rejected.push(`message: ${problem}`);
      send(res, 400, googleError(400, 'INVALID_ARGUMENT', `Invalid ${problem}`));
      return;
    }
    const token = message.token as string;
    const b = behaviours.get(token);
    const answer = (status: number, out: unknown, headers: Record<string, string> = {}): void => {
      fcm.attempts.push({ token, status });
      send(res, status, out, headers);
    };
    if (b?.kind === 'unregistered') {
      answer(404, googleError(404, 'NOT_FOUND', 'Requested entity was not found.', [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }]));
      return;
    }
    if (b?.kind === 'invalid') {
      answer(400, googleError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', [
        { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'INVALID_ARGUMENT' },
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'message.token', description: 'Invalid registration token' }] },
      ]));
      return;
    }
    if (b?.kind === 'flaky' && (b.seen ?? 0) < b.failures) {
      b.seen = (b.seen ?? 0) + 1;
      const rpc = b.status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE';
      answer(b.status, googleError(b.status, rpc, 'try later'), b.retryAfter === undefined ? {} : { 'retry-after': String(b.retryAfter) });
      return;
    }
    fcm.delivered.push({ token, data: message.data as Record<string, string>, message });
    answer(200, { name: `projects/${projectId}/messages/${randomBytes(6).toString('hex')}` });
  };

  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      if (req.method === 'POST' && req.url === '/token') exchange(body, res);
      else if (req.method === 'POST' && req.url === `/v1/projects/${projectId}/messages:send`) sendMessage(req, body, res);
      else send(res, 404, googleError(404, 'NOT_FOUND', 'no such route'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const serviceAccountJson = JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(8).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: clientEmail,
    token_uri: `${base}/token`,
  });
  return {
    endpoint: base,
    tokenUrl: `${base}/token`,
    projectId,
    serviceAccountJson,
    ...fcm,
    behave: (token, behaviour) => behaviours.set(token, { ...behaviour }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
