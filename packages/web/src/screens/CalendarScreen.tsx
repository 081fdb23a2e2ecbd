import type { DateSelectArg, DayCellMountArg, EventClickArg } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin from '@fullcalendar/interaction';
import listPlugin from '@fullcalendar/list';
import FullCalendar from '@fullcalendar/react';
import rrulePlugin from '@fullcalendar/rrule';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useMemo, useState } from 'react';
import { useRecords } from '../hooks.js';
import { toCalendarInput } from '../recurrence.js';
import { EventDialog, type EventDraft } from './EventDialog.js';

const PLUGINS = [dayGridPlugin, timeGridPlugin, listPlugin, interactionPlugin, rrulePlugin];

/** Month, week and agenda views of every event (series expanded), with create, edit and delete. */
export function CalendarScreen() {
  const events = useRecords('events');
  const calendars = useRecords('calendars');
  const [draft, setDraft] = useState<EventDraft | null>(null);
  const byUid = useMemo(() => new Map(calendars.map((c) => [c.uid, c])), [calendars]);
  const inputs = useMemo(() => events.map((e) => toCalendarInput(e, byUid)), [events, byUid]);

  const newEvent = (start?: Date, end?: Date, allDay = false): void => {
    const s = start ?? nextHour();
    setDraft({ kind: 'new', start: s, end: end ?? new Date(s.getTime() + 60 * 60 * 1000), allDay });
  };
  const onSelect = (arg: DateSelectArg): void => newEvent(arg.start, arg.end, arg.allDay);
  const onEventClick = (arg: EventClickArg): void => {
    arg.jsEvent.preventDefault();
    const uid = (arg.event.extendedProps as { uid?: string }).uid ?? arg.event.id;
    const record = events.find((e) => e.uid === uid);
    if (record) setDraft({ kind: 'edit', event: record, occurrenceStart: arg.event.start ?? new Date(record.startTime) });
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
