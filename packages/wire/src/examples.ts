import type { OperationId } from './operations.js';
import type {
  AppPasswordBody,
  AppPasswordResultWire,
  ConflictPageWire,
  CreatedFeedWire,
  FeedBody,
  FeedListWire,
  OccurrencePageWire,
  DeviceListResult,
  DeviceResult,
  RenameDeviceBody,
  LoginBody,
  MeResult,
  ProfileBody,
  PullResponseWire,
  PushBody,
  PushResponseWire,
  RefreshBody,
  ResolveBody,
  ResolveResponseWire,
  SendOtpBody,
  SendOtpResult,
  SignInResultWire,
  TokenPairWire,
  VerifyOtpBody,
} from './wire-types.js';

// One coherent story, shown in the OpenAPI document and sent by the contract test: a phone user
// signs in on a laptop, pushes a work calendar with a stand-up, a task and a reminder, pulls them
// back, and later restores the stand-up as it was before an edit from a stale version replaced it. Typed by the wire types,
// so an example that no longer fits its schema does not compile.

const T0 = '2026-03-02T08:00:00.000Z';
const T1 = '2026-03-02T08:05:00.000Z';
const user = {
  id: 7,
  name: 'Ada',
  email: null,
  phone: '+4915550100001',
  role: 'user',
  isPhoneVerified: true,
  notificationSettings: { syncNotifications: true, eventReminders: true, conflictAlerts: true },
};
const device = { uid: 'laptop-7f3a', platform: 'web', name: 'Firefox on the laptop', hasPushToken: false, createdAt: T0, lastSeenAt: T1, current: true };
const event = {
  id: 12, uid: 'evt-standup', version: '5', createdAt: T1, updatedAt: T1, deleted: null,
  calendarUid: 'cal-work', title: 'Stand-up', description: null, location: 'Room 2',
  startTime: '2026-03-03T09:00:00.000Z', endTime: '2026-03-03T09:15:00.000Z', allDay: false,
  timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', exdate: null,
  recurringEventUid: null, originalStartTime: null, splitFromUid: null, splitFromStart: null, moves: null, icalExtras: null,
};
const conflict = {
  conflictId: 3, entityType: 'EVENT' as const, entityUid: 'evt-standup', winnerVersion: '9', createdAt: T1, resolvedAt: null,
  // The stale edit from another device won (version 9); the loser is the server copy it replaced.
  loserSnapshot: { ...event },
};

/** Request bodies and success `data` per operation (absent: the operation takes no body / shows no example). */
export const EXAMPLES = {
  sendOtp: { request: { phone: '+4915550100001', name: 'Ada' } satisfies SendOtpBody, response: { expiresInSeconds: 300, resendAfterSeconds: 60 } satisfies SendOtpResult },
  verifyOtp: {
    request: { phone: '+4915550100001', otp: '123456', device: { uid: 'laptop-7f3a', platform: 'web', name: 'Firefox on the laptop' } } satisfies VerifyOtpBody,
    response: { accessToken: 'eyJhbGciOi…', refreshToken: 'eyJhbGciOi…', isNewUser: true, user, device } satisfies SignInResultWire,
  },
  login: {
    request: { email: 'ada@example.org', password: 'correct horse battery', device: { uid: 'laptop-7f3a', platform: 'web' } } satisfies LoginBody,
    response: { accessToken: 'eyJhbGciOi…', refreshToken: 'eyJhbGciOi…', isNewUser: false, user: { ...user, email: 'ada@example.org' }, device } satisfies SignInResultWire,
  },
  refreshTokens: {
    request: { refreshToken: 'eyJhbGciOi…', deviceUid: 'laptop-7f3a' } satisfies RefreshBody,
    response: { accessToken: 'eyJhbGciOi…', refreshToken: 'eyJhbGciOi…' } satisfies TokenPairWire,
  },
  getMe: { response: { user } satisfies MeResult },
  renameDevice: { request: { name: 'Work laptop' } satisfies RenameDeviceBody, response: { device: { ...device, name: 'Work laptop' } } satisfies DeviceResult },
  listDevices: { response: { devices: [device, { ...device, uid: 'phone-19c2', platform: null, name: null, current: false }] } satisfies DeviceListResult },
  updateMe: {
    request: { email: 'ada@example.org', password: 'correct horse battery', notificationSettings: { eventReminders: false } } satisfies ProfileBody,
    response: { user: { ...user, email: 'ada@example.org', notificationSettings: { ...user.notificationSettings, eventReminders: false } } } satisfies MeResult,
  },
  pushChanges: {
    request: {
      calendars: [{ uid: 'cal-work', op: 'upsert', baseVersion: null, name: 'Work', color: '#3366CC', timezone: 'Europe/Berlin' }],
      events: [{ uid: 'evt-standup', op: 'upsert', baseVersion: null, calendarUid: 'cal-work', title: 'Stand-up', location: 'Room 2', startTime: '2026-03-03T09:00:00.000Z', endTime: '2026-03-03T09:15:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR' }],
      tasks: [{ uid: 'task-slides', op: 'upsert', baseVersion: null, title: 'Prepare slides', dueAt: '2026-03-04T16:00:00.000Z', priority: 2 }],
      reminders: [{ uid: 'rem-standup', op: 'upsert', baseVersion: null, eventUid: 'evt-standup', minutesBefore: 10 }],
    } satisfies PushBody,
    response: {
      calendars: [{ uid: 'cal-work', status: 'created', id: 11, version: '4' }],
      events: [{ uid: 'evt-standup', status: 'created', id: 12, version: '5' }],
      tasks: [{ uid: 'task-slides', status: 'created', id: 13, version: '6' }],
      reminders: [{ uid: 'rem-standup', status: 'created', id: 14, version: '7' }],
      conflicts: [],
    } satisfies PushResponseWire,
  },
  pullChanges: {
    response: {
      cursorReset: false,
      nextCursor: 'eyJ2IjoxLCJ3Ijp7ImNhbGVuZGFycyI6IjQifX0',
      hasMore: false,
      newestConflictId: null,
      calendars: [{ id: 11, uid: 'cal-work', version: '4', createdAt: T1, updatedAt: T1, deleted: null, name: 'Work', color: '#3366CC', timezone: 'Europe/Berlin', isDefault: false }],
      events: [event],
      tasks: [],
      reminders: [{ id: 14, uid: 'rem-standup', version: '7', createdAt: T1, updatedAt: T1, deleted: null, eventUid: 'evt-standup', taskUid: null, minutesBefore: 10, remindAt: null, icalExtras: null }],
    } satisfies PullResponseWire,
  },
  listConflicts: { response: { conflicts: [conflict], hasMore: false, nextAfterId: null } satisfies ConflictPageWire },
  createAppPassword: {
    request: { name: 'Thunderbird on the laptop' } satisfies AppPasswordBody,
    response: { password: 'q3LkX0a9Vt2mZr8YbN4cWe7u', device: { ...device, uid: 'caldav-0199a3f4-7c1e-7b51-9a0e-5d2f1c3b4a6d', platform: 'caldav', name: 'Thunderbird on the laptop', current: false } } satisfies AppPasswordResultWire,
  },
  createFeed: {
    request: { calendarUid: 'cal-work' } satisfies FeedBody,
    response: { id: 1, calendarUid: 'cal-work', createdAt: T1, url: 'https://calsync.example.org/feeds/X2jv6bq0Qm4tZxR8yP1nWc5dKe7uHs3a.ics' } satisfies CreatedFeedWire,
  },
  listFeeds: { response: { feeds: [{ id: 1, calendarUid: 'cal-work', createdAt: T1 }] } satisfies FeedListWire },
  listOccurrences: {
    response: {
      occurrences: [
        { eventUid: 'evt-standup', seriesUid: 'evt-standup', calendarUid: 'cal-work', title: 'Stand-up', start: '2026-03-03T09:00:00.000Z', end: '2026-03-03T09:15:00.000Z', allDay: false, timezone: 'Europe/Berlin', originalStart: '2026-03-03T09:00:00.000Z', overridden: false },
        { eventUid: 'evt-standup-0304', seriesUid: 'evt-standup', calendarUid: 'cal-work', title: 'Stand-up (in the big room)', start: '2026-03-04T10:00:00.000Z', end: '2026-03-04T10:30:00.000Z', allDay: false, timezone: 'Europe/Berlin', originalStart: '2026-03-04T09:00:00.000Z', overridden: true },
        { eventUid: 'evt-offsite', seriesUid: null, calendarUid: 'cal-work', title: 'Offsite', start: '2026-03-05', end: '2026-03-07', allDay: true, timezone: null, originalStart: null, overridden: false },
      ],
      truncated: false,
    } satisfies OccurrencePageWire,
  },
  resolveConflict: {
    request: { action: 'restore' } satisfies ResolveBody,
    response: { conflict: { ...conflict, resolvedAt: '2026-03-02T09:00:00.000Z' }, record: { entityType: 'EVENT', uid: 'evt-standup', version: '10' } } satisfies ResolveResponseWire,
  },
} satisfies Partial<Record<OperationId, { readonly request?: unknown; readonly response?: unknown }>>;
