import type { Occurrence } from '@calsync/client';
import type { DatesSetArg, DateSelectArg, DayCellMountArg, EventClickArg } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin from '@fullcalendar/interaction';
import listPlugin from '@fullcalendar/list';
import FullCalendar from '@fullcalendar/react';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useMemo, useState } from 'react';
import { client } from '../client.js';
import { useRecords } from '../hooks.js';
import { toCalendarInput, viewerZone } from '../recurrence.js';
import { EventDialog, type EventDraft } from './EventDialog.js';

const PLUGINS = [dayGridPlugin, timeGridPlugin, listPlugin, interactionPlugin];

/** The window FullCalendar shows (its visible range). */
interface Range {
  readonly from: string;
  readonly to: string;
}

/**
 * Month, week and agenda views of the occurrences in view, expanded by the SDK (each series in
 * its own zone, exdates and overrides applied), with create, edit and delete.
 */
export function CalendarScreen() {
  const events = useRecords('events');
  const calendars = useRecords('calendars');
  const [draft, setDraft] = useState<EventDraft | null>(null);
  const [range, setRange] = useState<Range | null>(null);
  const zone = useMemo(() => viewerZone(), []);
  const colors = useMemo(() => new Map(calendars.map((c) => [c.uid, c.color])), [calendars]);
  const inputs = useMemo(() => {
    if (range === null) return [];
    // `events` and `calendars` are read for their changes: the SDK answers from the same store.
    void events;
    return client.occurrences({ ...range, tz: zone }).occurrences.map((o) => toCalendarInput(o, colors.get(o.calendarUid)));
  }, [range, events, colors, zone]);
  const onDatesSet = (arg: DatesSetArg): void => {
    const next = { from: arg.start.toISOString(), to: arg.end.toISOString() };
    setRange((r) => (r?.from === next.from && r.to === next.to ? r : next));
  };

  const newEvent = (start?: Date, end?: Date, allDay = false): void => {
    const s = start ?? nextHour();
    setDraft({ kind: 'new', start: s, end: end ?? new Date(s.getTime() + 60 * 60 * 1000), allDay });
  };
  const onSelect = (arg: DateSelectArg): void => newEvent(arg.start, arg.end, arg.allDay);
  const onEventClick = (arg: EventClickArg): void => {
    arg.jsEvent.preventDefault();
    const occurrence = (arg.event.extendedProps as { occurrence?: Occurrence }).occurrence;
    const record = occurrence && events.find((e) => e.uid === occurrence.eventUid);
    if (occurrence && record) setDraft({ kind: 'edit', event: record, occurrence });
  };

  return (
    <section aria-labelledby="calendar-title" className="calendar-screen">
      <div className="screen-head">
        <h1 id="calendar-title">Calendar</h1>
        <button type="button" onClick={() => newEvent()}>
          New event
        </button>
      </div>
      <FullCalendar
        plugins={PLUGINS}
        initialView="dayGridMonth"
        headerToolbar={{ left: 'prev,next today', center: 'title', right: 'dayGridMonth,timeGridWeek,listWeek' }}
        // Text, not icon fonts, on every toolbar button: FullCalendar's chevron icons are role="img" without a name.
        buttonIcons={false}
        buttonText={{ prev: 'Previous', next: 'Next', today: 'Today', month: 'Month', week: 'Week', list: 'Agenda' }}
        buttonHints={{ prev: 'Previous $0', next: 'Next $0', today: 'Go to $0' }}
        views={{ listWeek: { listDayFormat: { weekday: 'long', month: 'long', day: 'numeric' } } }}
        events={inputs}
        datesSet={onDatesSet}
        selectable
        select={onSelect}
        eventClick={onEventClick}
        eventInteractive
        dayCellDidMount={unlabelDayCell}
        height="auto"
        nowIndicator
        firstDay={1}
        dayMaxEvents={4}
      />
      {draft && <EventDialog draft={draft} calendars={calendars} onClose={() => setDraft(null)} />}
    </section>
  );
}

/**
 * FullCalendar names each month-grid cell after its day number link, while the cell's text also
 * holds its events (axe: label-content-name-mismatch). Without the label the cell is read by its
 * content, which starts with the day link's own name anyway.
 */
function unlabelDayCell(arg: DayCellMountArg): void {
  arg.el.removeAttribute('aria-labelledby');
}

function nextHour(): Date {
  const d = new Date();
  d.setMinutes(0, 0, 0);
  d.setHours(d.getHours() + 1);
  return d;
}
