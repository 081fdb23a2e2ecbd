import type { Occurrence } from '@calsync/client';
import type { CalendarApi, DatesSetArg, DayCellContentArg, DayHeaderContentArg, DateSelectArg, DayCellMountArg, EventClickArg } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin, { type DateClickArg } from '@fullcalendar/interaction';
import listPlugin from '@fullcalendar/list';
import FullCalendar from '@fullcalendar/react';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useEffect, useMemo, useRef, useState } from 'react';
import { client } from '../client.js';
import { LONG_DAY, localDate, TIME_FORMAT } from '../format.js';
import { NARROW_SCREEN, useMediaQuery, useRecords } from '../hooks.js';
import { toCalendarInput, viewerZone } from '../recurrence.js';
import { occurrencesOn, startOfDay, startOfNextDay } from '../days.js';
import { DayList } from './DayList.js';
import { EventDialog, type EventDraft } from './EventDialog.js';

const PLUGINS = [dayGridPlugin, timeGridPlugin, listPlugin, interactionPlugin];

/**
 * The views of the view switcher, by the names of its buttons. A phone also gets three days: seven
 * columns of a phone leave about five letters of a title, three leave room for it.
 */
const WIDE_VIEWS = [
  { view: 'dayGridMonth', label: 'Month' },
  { view: 'timeGridWeek', label: 'Week' },
  { view: 'listWeek', label: 'Agenda' },
] as const;
const NARROW_VIEWS = [WIDE_VIEWS[0], WIDE_VIEWS[1], { view: 'timeGridThreeDay', label: '3 days' }, WIDE_VIEWS[2]] as const;
type ViewName = (typeof NARROW_VIEWS)[number]['view'];

const isTimeGrid = (view: ViewName): boolean => view === 'timeGridWeek' || view === 'timeGridThreeDay';

/** The browser's language, so FullCalendar's dates and times follow the user's locale like the rest of the app. */
const LOCALE = typeof navigator === 'undefined' ? 'en' : navigator.language || 'en';

/** The window FullCalendar shows (its visible range). */
interface Range {
  readonly from: string;
  readonly to: string;
}

/**
 * Month, week and agenda views of the occurrences in view, expanded by the SDK (each series in
 * its own zone, exdates and overrides applied), with create, edit and delete. On a phone the
 * month grid is for finding a day: a tap chooses it, and its occurrences are listed under the grid.
 */
export function CalendarScreen() {
  const events = useRecords('events');
  const calendars = useRecords('calendars');
  const [draft, setDraft] = useState<EventDraft | null>(null);
  const [range, setRange] = useState<Range | null>(null);
  const [view, setView] = useState<ViewName>('dayGridMonth');
  const [title, setTitle] = useState('');
  /** The day a phone's month view lists under its grid (`YYYY-MM-DD`). */
  const [day, setDay] = useState(() => localDate(new Date()));
  const narrow = useMediaQuery(NARROW_SCREEN);
  const dayList = narrow && view === 'dayGridMonth';
  const views = narrow ? NARROW_VIEWS : WIDE_VIEWS;
  const calendarRef = useRef<FullCalendar>(null);
  const api = (): CalendarApi | undefined => calendarRef.current?.getApi();
  const zone = useMemo(() => viewerZone(), []);
  const colors = useMemo(() => new Map(calendars.map((c) => [c.uid, c.color])), [calendars]);
  const { occurrences, truncated } = useMemo(() => {
    if (range === null) return { occurrences: [], truncated: false };
    // `events` and `calendars` are read for their changes: the SDK answers from the same store.
    void events;
    void calendars;
    return client.occurrences({ ...range, tz: zone });
  }, [range, events, calendars, zone]);
  const inputs = useMemo(() => occurrences.map((o) => toCalendarInput(o, colors.get(o.calendarUid))), [occurrences, colors]);
  const dayOccurrences = useMemo(() => (dayList ? occurrencesOn(occurrences, day) : []), [dayList, occurrences, day]);
  // The week view opens at 07:00. (FullCalendar's scrollTime is applied before the view gets its
  // fixed height, when there is nothing to scroll yet; so scroll once the view is laid out.)
  useEffect(() => {
    if (!isTimeGrid(view)) return;
    const frame = requestAnimationFrame(() => api()?.scrollToTime('07:00:00'));
    return () => cancelAnimationFrame(frame);
  }, [view, range]);
  // A window that turns wide while the three days show gets the week they are in.
  useEffect(() => {
    if (!narrow && view === 'timeGridThreeDay') api()?.changeView('timeGridWeek');
  }, [view, narrow]);
  const onDatesSet = (arg: DatesSetArg): void => {
    const next = { from: arg.start.toISOString(), to: arg.end.toISOString() };
    setRange((r) => (r?.from === next.from && r.to === next.to ? r : next));
    setTitle(arg.view.title);
    setView(arg.view.type as ViewName);
    // A month shown anew lists today when it holds today, else its first day.
    if (arg.view.type === 'dayGridMonth') {
      const [first, end] = [localDate(arg.view.currentStart), localDate(arg.view.currentEnd)];
      const today = localDate(new Date());
      setDay((d) => (d >= first && d < end ? d : today >= first && today < end ? today : first));
    }
  };
  const onDateClick = (arg: DateClickArg): void => {
    if (dayList) setDay(localDate(arg.date));
  };
  // On a phone each day number is also a link that chooses the day, so a keyboard can reach it.
  const onDayNumber = (date: Date): void => setDay(localDate(date));
  const dayCellClassNames = (arg: DayCellContentArg): string[] => (dayList && localDate(arg.date) === day ? ['chosen-day'] : []);

  const newEvent = (start?: Date, end?: Date, allDay = false): void => {
    const s = start ?? nextHour();
    setDraft({ kind: 'new', start: s, end: end ?? new Date(s.getTime() + 60 * 60 * 1000), allDay });
  };
  /**
   * A selection makes a new event over it. On a phone's month a single day is chosen instead, as a
   * tap chooses it: a mouse click there selects that day too (a finger selects only after a long
   * press), and the day's list offers the new event.
   */
  const onSelect = (arg: DateSelectArg): void => {
    if (dayList && startOfNextDay(localDate(arg.start)).getTime() === arg.end.getTime()) {
      api()?.unselect();
      setDay(localDate(arg.start));
      return;
    }
    newEvent(arg.start, arg.end, arg.allDay);
  };
  const openOccurrence = (occurrence: Occurrence | undefined): void => {
    const record = occurrence && events.find((e) => e.uid === occurrence.eventUid);
    if (occurrence && record) setDraft({ kind: 'edit', event: record, occurrence });
  };
  const onEventClick = (arg: EventClickArg): void => {
    arg.jsEvent.preventDefault();
    openOccurrence((arg.event.extendedProps as { occurrence?: Occurrence }).occurrence);
  };
  /**
   * Switches the view. From a phone's month the three days start on the day chosen there (its list
   * is what the user was looking at), and the week and the agenda open on that day's week; back to
   * the month goes to that day's month while the days shown hold it; otherwise the view opens on
   * FullCalendar's own date.
   */
  const showView = (next: ViewName): void => {
    const chosen = startOfDay(day).getTime();
    const shown = range !== null && chosen >= Date.parse(range.from) && chosen < Date.parse(range.to);
    if (next !== view && (dayList || (next === 'dayGridMonth' && shown))) api()?.changeView(next, day);
    else api()?.changeView(next);
  };
  /** A new event on `chosen`: at the next hour when that is today, else at 09:00. */
  const newEventOn = (chosen: string): void => {
    if (chosen === localDate(new Date())) return newEvent();
    const start = startOfDay(chosen);
    start.setHours(9);
    newEvent(start);
  };

  return (
    <section aria-labelledby="calendar-title" className="calendar-screen">
      <div className="screen-head">
        <h1 id="calendar-title">
          <span className="visually-hidden">Calendar: </span>
          {title || 'Calendar'}
        </h1>
        <button type="button" onClick={() => newEvent()}>
          New event
        </button>
      </div>
      <div className="calendar-toolbar" role="toolbar" aria-label="Calendar view">
        <div className="toolbar-group">
          <button type="button" className="secondary icon" aria-label="Previous" title="Previous" onClick={() => api()?.prev()}>
            <span aria-hidden="true">‹</span>
          </button>
          <button type="button" className="secondary icon" aria-label="Next" title="Next" onClick={() => api()?.next()}>
            <span aria-hidden="true">›</span>
          </button>
          <button type="button" className="secondary" onClick={() => api()?.today()}>
            Today
          </button>
        </div>
        <div className="toolbar-group segmented" role="group" aria-label="View">
          {views.map((v) => (
            <button key={v.view} type="button" className="secondary" aria-pressed={view === v.view} onClick={() => showView(v.view)}>
              {v.label}
            </button>
          ))}
        </div>
      </div>
      <FullCalendar
        ref={calendarRef}
        plugins={PLUGINS}
        locale={LOCALE}
        initialView="dayGridMonth"
        headerToolbar={false}
        views={{
          dayGridMonth: { dayHeaderFormat: { weekday: 'short' }, dayCellContent: dayList ? namedDayNumber : undefined },
          // Short day headers ("Mon" over "23"), so the columns of a narrow window fit them; the day opens at 07:00.
          timeGridWeek: { dayHeaderContent: weekDayHeader, scrollTime: '07:00:00', slotLabelFormat: TIME_FORMAT },
          timeGridThreeDay: { type: 'timeGrid', duration: { days: 3 }, dayHeaderContent: weekDayHeader, scrollTime: '07:00:00', slotLabelFormat: TIME_FORMAT },
          // One date per day in the agenda (no second, side date).
          listWeek: { listDayFormat: { weekday: 'long', month: 'long', day: 'numeric' }, listDaySideFormat: false },
        }}
        eventTimeFormat={TIME_FORMAT}
        events={inputs}
        datesSet={onDatesSet}
        selectable
        select={onSelect}
        eventClick={onEventClick}
        dateClick={onDateClick}
        navLinks={dayList}
        navLinkDayClick={onDayNumber}
        navLinkHint="Show the events of $0"
        eventInteractive
        dayCellDidMount={prepareDayCell}
        dayCellClassNames={dayCellClassNames}
        // A time grid scrolls inside its own box (opening at 07:00); month and agenda grow with their content.
        height={isTimeGrid(view) ? 'min(70vh, 44rem)' : 'auto'}
        eventMinHeight={36}
        nowIndicator
        firstDay={1}
        dayMaxEvents={3}
      />
      {truncated && (
        <p className="hint" role="status">
          Some repeating events have more occurrences here than can be shown (a series every minute, say): only their first ones are.
        </p>
      )}
      {dayList && <DayList day={day} occurrences={dayOccurrences} colors={colors} onOpen={openOccurrence} onNew={newEventOn} />}
      {draft && <EventDialog draft={draft} calendars={calendars} onClose={() => setDraft(null)} />}
    </section>
  );
}

/**
 * A month-grid cell as it mounts:
 * - FullCalendar names it after its day number link, while the cell's text also holds its events
 *   (axe: label-content-name-mismatch). Without the label the cell is read by its content, which
 *   starts with the day link's own name anyway.
 * - FullCalendar hears taps on the grid as a whole (dateClick), so the cell itself answers no
 *   click. Chromium then moves a tap near the cell's bottom edge to the nearest element that does,
 *   the next row's day-number link on a phone, and a finger there chose the day below. A cell
 *   that answers clicks keeps its own taps; choosing the day is still dateClick's.
 */
function prepareDayCell(arg: DayCellMountArg): void {
  arg.el.removeAttribute('aria-labelledby');
  arg.el.addEventListener('click', keepTapsOnTheCell);
}

function keepTapsOnTheCell(): void {}

/**
 * A phone's day number. FullCalendar makes it a focusable `<a>` without an href (navLinks), which
 * is no link to a screen reader, named only by its text: a cell read "2 Standup", with no month,
 * and the number did not say it can be pressed. Here it is a button named by its whole day; the eye
 * still sees the number. The role goes when a wider window renders FullCalendar's own number again.
 */
function namedDayNumber(arg: DayCellContentArg) {
  return (
    <>
      <span aria-hidden="true">{arg.dayNumberText}</span>
      <span className="visually-hidden" ref={actAsButton}>
        {LONG_DAY.format(arg.date)}
      </span>
    </>
  );
}

function actAsButton(name: HTMLElement): () => void {
  const number = name.closest('[data-navlink]');
  number?.setAttribute('role', 'button');
  return () => number?.removeAttribute('role');
}

const weekdayName = new Intl.DateTimeFormat(LOCALE, { weekday: 'short' });
const dayNumber = new Intl.DateTimeFormat(LOCALE, { day: 'numeric' });

/** A time-grid column header on two short lines, "Mon" over "23", so seven columns fit a narrow window. */
function weekDayHeader(arg: DayHeaderContentArg) {
  return (
    <span className="week-day">
      <span>{weekdayName.format(arg.date)}</span> <span>{dayNumber.format(arg.date)}</span>
    </span>
  );
}

function nextHour(): Date {
  const d = new Date();
  d.setMinutes(0, 0, 0);
  d.setHours(d.getHours() + 1);
  return d;
}
