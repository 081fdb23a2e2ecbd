import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import { useConflicts } from '@calsync/react';
import { Navigate, NavLink, Route, Routes, useLocation, useNavigate } from 'react-router';
import { client } from './client.js';
import { ConfirmHost } from './components/ConfirmHost.js';
import { SignOutButton } from './components/SignOutButton.js';
import { SyncIndicator, SyncNowButton } from './components/SyncIndicator.js';
import { useSessionEnded, useSyncStatus } from './hooks.js';
import { CalendarsScreen } from './screens/CalendarsScreen.js';
import { ConflictsScreen } from './screens/ConflictsScreen.js';
import { DevicesScreen } from './screens/DevicesScreen.js';
import { RemindersScreen } from './screens/RemindersScreen.js';
import { SignInScreen } from './screens/SignInScreen.js';
import { TasksScreen } from './screens/TasksScreen.js';
import { showToast, Toasts } from './toast.js';
import { ReminderAlerts } from './ReminderAlerts.js';

// FullCalendar is most of the bundle: the calendar screen is its own chunk, so the sign-in screen
// loads without it. The service worker precaches every chunk, so it opens offline all the same.
const CalendarScreen = lazy(() => import('./screens/CalendarScreen.js').then((m) => ({ default: m.CalendarScreen })));

const SCREENS = [
  { path: '/calendar', label: 'Calendar' },
  { path: '/tasks', label: 'Tasks' },
  { path: '/reminders', label: 'Reminders' },
  { path: '/calendars', label: 'Calendars' },
  { path: '/conflicts', label: 'Conflicts' },
  { path: '/devices', label: 'Devices' },
] as const;

/**
 * The top bar. On a wide screen: brand, the screens, the sync indicator, Sync now and Sign out in
 * one row. On a phone it keeps one row of at most 64 px (brand, sync indicator, "Menu"); the
 * menu button opens a panel with the screens, Sync now and Sign out.
 */
function TopBar() {
  const status = useSyncStatus();
  const { conflicts, refresh } = useConflicts();
  const unresolved = conflicts.length;
  // New conflicts come by the SDK's subscription; one resolved on another device leaves the list
  // when it is listed again, after a sync round.
  useEffect(() => {
    if (status.online && unresolved > 0) void refresh().catch(() => undefined);
  }, [status.lastSyncAt, status.online]);
  const countId = useId();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const location = useLocation();
  // Going to a screen closes the menu.
  useEffect(() => setOpen(false), [location.pathname]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <header className="top-bar">
      <span className="brand">calsync</span>
      <SyncIndicator status={status} />
      <button
        type="button"
        className="menu-button secondary"
        aria-expanded={open}
        aria-controls={panelId}
        aria-describedby={unresolved > 0 ? countId : undefined}
        onClick={() => setOpen((v) => !v)}
      >
        Menu
        {unresolved > 0 && (
          <span className="count-badge" aria-hidden="true">
            {unresolved}
          </span>
        )}
      </button>
      {/* The count of unresolved conflicts, read with the Conflicts link (and with Menu on a phone). */}
      <span id={countId} hidden>
        {unresolved === 1 ? '1 unresolved conflict' : `${unresolved} unresolved conflicts`}
      </span>
      <div id={panelId} className={`top-panel${open ? ' open' : ''}`}>
        <nav aria-label="Screens">
          <ul>
            {SCREENS.map((s) => (
              <li key={s.path}>
                <NavLink to={s.path} end onClick={() => setOpen(false)} aria-describedby={s.path === '/conflicts' && unresolved > 0 ? countId : undefined}>
                  {s.label}
                  {s.path === '/conflicts' && unresolved > 0 && (
                    <span className="count-badge" aria-hidden="true" data-testid="conflict-count">
                      {unresolved}
                    </span>
                  )}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="top-actions">
          <SyncNowButton online={status.online} />
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}

/**
 * A toast for each conflict this device hears of (its own push's, or another device's), with a way
 * to the conflict centre; on the conflict centre itself, where the conflict shows in the list, the
 * toast only says so.
 */
function ConflictToasts() {
  const navigate = useNavigate();
  const path = useRef('');
  path.current = useLocation().pathname;
  useEffect(
    () =>
      client.conflicts.subscribe((fresh) => {
        if (fresh.length === 0) return;
        const first = fresh[0];
        // The name the record has here now (this device's copy), else the set-aside version's.
        const collection = first ? ({ CALENDAR: 'calendars', EVENT: 'events', TASK: 'tasks', REMINDER: 'reminders' } as const)[first.entityType] : undefined;
        const local = (collection && first ? client[collection].get(first.entityUid) : undefined) as { title?: unknown; name?: unknown } | undefined;
        const snapshot = first?.loserSnapshot as { title?: unknown; name?: unknown } | undefined;
        const name = [local?.title, local?.name, snapshot?.title, snapshot?.name].find((v): v is string => typeof v === 'string') ?? null;
        const onScreen = path.current === '/conflicts';
        showToast({
          message:
            fresh.length === 1 && name !== null
              ? `“${name}” was changed on two devices. Choose the version to keep${onScreen ? ' below' : ''}.`
              : `${fresh.length} changes met changes from another device. Choose the versions to keep${onScreen ? ' below' : ''}.`,
          durationMs: 10_000,
          ...(onScreen ? {} : { action: { label: 'Review', run: () => void navigate('/conflicts') } }),
        });
      }),
    [navigate],
  );
  return null;
}

/** The app shell: sign-in when signed out; otherwise the top bar, the screens and the toasts. */
export function App() {
  const status = useSyncStatus();
  const sessionEnded = useSessionEnded();
  if (!status.signedIn) {
    return (
      <main className="sign-in-page">
        <SignInScreen sessionEnded={sessionEnded} />
      </main>
    );
  }
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <TopBar />
      <main id="content" tabIndex={-1}>
        <Routes>
          <Route
            path="/calendar"
            element={
              <Suspense fallback={<p>Loading the calendar…</p>}>
                <CalendarScreen />
              </Suspense>
            }
          />
          <Route path="/tasks" element={<TasksScreen />} />
          <Route path="/reminders" element={<RemindersScreen />} />
          <Route path="/calendars" element={<CalendarsScreen />} />
          <Route path="/conflicts" element={<ConflictsScreen />} />
          <Route path="/devices" element={<DevicesScreen />} />
          {/* Every URL of the app stays under /app/ (the service worker's scope), so /app/ itself goes on to /app/calendar. */}
          <Route path="*" element={<Navigate to="/calendar" replace />} />
        </Routes>
      </main>
      <Toasts />
      <ReminderAlerts />
      <ConfirmHost />
      <ConflictToasts />
    </div>
  );
}
