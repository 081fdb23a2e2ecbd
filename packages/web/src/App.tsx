import { lazy, Suspense, useEffect, useId, useState } from 'react';
import { Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { SignOutButton } from './components/SignOutButton.js';
import { SyncIndicator, SyncNowButton } from './components/SyncIndicator.js';
import { useSessionEnded, useSyncStatus } from './hooks.js';
import { CalendarsScreen } from './screens/CalendarsScreen.js';
import { ConflictsScreen } from './screens/ConflictsScreen.js';
import { DevicesScreen } from './screens/DevicesScreen.js';
import { RemindersScreen } from './screens/RemindersScreen.js';
import { SignInScreen } from './screens/SignInScreen.js';
import { TasksScreen } from './screens/TasksScreen.js';
import { Toasts } from './toast.js';
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
      <button type="button" className="menu-button secondary" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((v) => !v)}>
        Menu
      </button>
      <div id={panelId} className={`top-panel${open ? ' open' : ''}`}>
        <nav aria-label="Screens">
          <ul>
            {SCREENS.map((s) => (
              <li key={s.path}>
                <NavLink to={s.path} end onClick={() => setOpen(false)}>
                  {s.label}
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
    </div>
  );
}
