import type { Occurrence } from '@calsync/client';
import { startOfDay } from '../days.js';
import { LONG_DAY, formatTimeOn } from '../format.js';
import { DEFAULT_COLOR } from '../recurrence.js';

/**
 * When an occurrence runs, as the list of `day` shows it: "All day", or its start over its end (a
 * date too for a time on another day), the end read out as "to …".
 */
function When({ o, day }: { o: Occurrence; day: string }) {
  if (o.allDay) return <span className="day-event-when">All day</span>;
  const at = (iso: string) => formatTimeOn(new Date(iso), day);
  return (
    <span className="day-event-when">
      <span>{at(o.start)}</span>
      {o.end !== o.start && (
        <span className="day-event-end">
          <span className="visually-hidden">to </span>
          {at(o.end)}
        </span>
      )}
    </span>
  );
}

/**
 * The list under a phone's month grid: the chosen day's occurrences, each opening its event, and
 * a button for a new event that day. A seventh of a phone's width leaves a title a few letters in
 * the grid; here each gets a line.
 */
export function DayList(props: {
  day: string;
  occurrences: readonly Occurrence[];
  colors: ReadonlyMap<string, string | null | undefined>;
  onOpen: (occurrence: Occurrence) => void;
  onNew: (day: string) => void;
}) {
  const { day, occurrences, colors, onOpen, onNew } = props;
  const title = LONG_DAY.format(startOfDay(day));
  return (
    <section className="day-list" aria-labelledby="day-list-title">
      <h2 id="day-list-title">{title}</h2>
      {occurrences.length === 0 ? (
        <p className="hint">No events.</p>
      ) : (
        <ul>
          {occurrences.map((o) => (
            <li key={`${o.eventUid}|${o.originalStart ?? ''}`}>
              <button type="button" className="day-event" onClick={() => onOpen(o)}>
                <span className="day-event-mark" aria-hidden="true" style={{ background: colors.get(o.calendarUid) || DEFAULT_COLOR }} />
                <When o={o} day={day} />
                <span className="day-event-title">{o.title}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <button type="button" className="secondary" onClick={() => onNew(day)}>
        Add event on {title}
      </button>
    </section>
  );
}
