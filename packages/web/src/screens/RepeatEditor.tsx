import { useId } from 'react';
import { FREQUENCIES, WEEKDAYS, weeklyDays, type Frequency, type Repeat } from '../recurrence.js';

/**
 * The "Repeat" group of the event dialog: how often (with an interval), on which weekdays for a
 * weekly rule, and how the series ends ("Never", "On date" with its "End date", "After" a number
 * of "occurrences"), each choice on its own row beside its field. A rule it cannot show stays as a custom rule until another frequency is picked.
 * A weekly rule without days shows the start's weekday (`startDay`) checked, the day it repeats on;
 * it is written as a day of the rule only once the user changes the days.
 */
export function RepeatEditor({
  repeat,
  startDay,
  onChange,
  disabled,
}: {
  repeat: Repeat;
  startDay: string | null;
  onChange: (next: Repeat) => void;
  disabled: boolean;
}) {
  const id = useId();
  const set = (patch: Partial<Repeat>): void => onChange({ ...repeat, custom: null, ...patch });
  const days = weeklyDays(repeat, startDay);
  const unit = { '': '', DAILY: 'days', WEEKLY: 'weeks', MONTHLY: 'months', YEARLY: 'years' }[repeat.freq];
  return (
    <fieldset className="span-2 repeat" disabled={disabled} aria-describedby={disabled ? `${id}-why` : undefined}>
      <legend>Repeat</legend>
      {disabled && (
        <p id={`${id}-why`} className="hint">
          The repeat rule belongs to the whole series: choose “This and following events” or “All events” to change it.
        </p>
      )}
      <div className="repeat-row">
        <label htmlFor={`${id}-freq`}>Repeats</label>
        <select
          id={`${id}-freq`}
          value={repeat.custom !== null ? 'custom' : repeat.freq}
          onChange={(e) => set({ freq: e.target.value as Frequency })}
        >
          {FREQUENCIES.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
          {repeat.custom !== null && <option value="custom">Custom: {repeat.custom}</option>}
        </select>
        {repeat.freq !== '' && repeat.custom === null && (
          <>
            <label htmlFor={`${id}-interval`}>Every</label>
            <input
              id={`${id}-interval`}
              type="number"
              min={1}
              max={99}
              value={repeat.interval}
              onChange={(e) => set({ interval: Math.max(1, Number(e.target.value) || 1) })}
              aria-describedby={`${id}-unit`}
            />
            <span id={`${id}-unit`}>{unit}</span>
          </>
        )}
      </div>
      {repeat.freq === 'WEEKLY' && repeat.custom === null && (
        <div className="weekdays" role="group" aria-label="On days">
          {WEEKDAYS.map((d) => (
            <label key={d.code} className="check">
              <input
                type="checkbox"
                checked={days.includes(d.code)}
                onChange={(e) => set({ days: e.target.checked ? [...days, d.code] : days.filter((x) => x !== d.code) })}
              />{' '}
              {d.label}
            </label>
          ))}
        </div>
      )}
      {repeat.freq !== '' && repeat.custom === null && (
        <div className="ends" role="radiogroup" aria-label="Repeat ends">
          <div className="end-choice">
            <label className="check">
              <input type="radio" name={`${id}-ends`} value="never" checked={repeat.ends === 'never'} onChange={() => set({ ends: 'never' })} /> Never
            </label>
          </div>
          <div className="end-choice">
            <label className="check">
              <input type="radio" name={`${id}-ends`} value="on" checked={repeat.ends === 'on'} onChange={() => set({ ends: 'on' })} /> On date
            </label>
            <label htmlFor={`${id}-until`} className="visually-hidden">
              End date
            </label>
            <input id={`${id}-until`} type="date" value={repeat.until} disabled={repeat.ends !== 'on'} onChange={(e) => set({ until: e.target.value })} />
          </div>
          <div className="end-choice">
            <label className="check">
              <input type="radio" name={`${id}-ends`} value="after" checked={repeat.ends === 'after'} onChange={() => set({ ends: 'after' })} /> After
            </label>
            <input
              id={`${id}-count`}
              type="number"
              min={1}
              max={999}
              value={repeat.count}
              disabled={repeat.ends !== 'after'}
              onChange={(e) => set({ count: Math.max(1, Number(e.target.value) || 1) })}
            />
            <label htmlFor={`${id}-count`}>occurrences</label>
          </div>
        </div>
      )}
    </fieldset>
  );
}
