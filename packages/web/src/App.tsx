import { lazy, Suspense } from 'react';
import { Navigate, NavLink, Route, Routes } from 'react-router';
import { SignOutButton } from './components/SignOutButton.js';
import { SyncIndicator } from './components/SyncIndicator.js';
import { useSessionEnded, useSyncStatus } from './hooks.js';
import { CalendarsScreen } from './screens/CalendarsScreen.js';
import { ConflictsScreen } from './screens/ConflictsScreen.js';
import { DevicesScreen } from './screens/DevicesScreen.js';
import { RemindersScreen } from './screens/RemindersScreen.js';
import { SignInScreen } from './screens/SignInScreen.js';
import { TasksScreen } from './screens/TasksScreen.js';

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

/** The app shell: sign-in when signed out; otherwise navigation, the sync indicator and the screens. */
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
      <header className="top-bar">
        <span className="brand">calsync</span>
        <nav aria-label="Screens">
          <ul>
            {SCREENS.map((s) => (
              <li key={s.path}>
                <NavLink to={s.path} end>
                  {s.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <SyncIndicator status={status} />
        <SignOutButton />
      </header>
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
    </div>
  );
}
