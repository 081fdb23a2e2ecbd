import ICAL from 'ical.js';
import { ICAL_EXTRAS_MAX } from '@calsync/domain/records';

/**
 * The text a record keeps of `component`: the component whole, as a calendar app sent it, without
 * the alarms that are reminders (records of their own; `isReminder` says which). The properties
 * the fields hold stay in it too, so they can be written back as they came while their field still
 * means the same. Null when nothing is left.
 */
export function extrasOf(component: ICAL.Component, isReminder: (alarm: ICAL.Component) => boolean = () => true): string | null {
  const copy = cloneComponent(component);
  for (const alarm of copy.getAllSubcomponents('valarm')) if (isReminder(alarm)) copy.removeSubcomponent(alarm);
  if (copy.getAllProperties().length === 0 && copy.getAllSubcomponents().length === 0) return null;
  const text = icalText(copy);
  // Longer than a record field holds: the largest properties (attachments first) go, so the record is still kept.
  if (text.length <= ICAL_EXTRAS_MAX) return text;
  const bySize = [...copy.getAllProperties()].sort((a, b) => b.toICALString().length - a.toICALString().length);
  for (const prop of bySize) {
    copy.removeProperty(prop);
    const shorter = icalText(copy);
    if (shorter.length <= ICAL_EXTRAS_MAX) return shorter;
  }
  return null;
}

/**
 * The iCalendar text of a component, written so that reading it back gives the same values.
 * ical.js reads a backslash in a parameter value as an escape (Apple's
 * X-ADDRESS=1658 Market St\\nSan Francisco reads as one backslash and an n) but writes it
 * unescaped, so a second read would turn it into a line break; doubling the backslashes before
 * writing keeps what a calendar app sent byte for byte. Changes `component`.
 */
export function icalText(component: ICAL.Component): string {
  escapeParameterBackslashes(component);
  return component.toString();
}


function escapeParameterBackslashes(component: ICAL.Component): void {
  for (const p of component.getAllProperties()) {
    const params = p.toJSON()[1] as Record<string, unknown>;
    for (const [name, value] of Object.entries(params)) {
      if (typeof value === 'string' && value.includes('\\')) p.setParameter(name, value.replace(/\\/g, '\\\\'));
    }
  }
  for (const sub of component.getAllSubcomponents()) escapeParameterBackslashes(sub);
}

/** A deep copy of a component (ICAL.Component shares its jCal arrays with `toJSON()`'s answer). */
export function cloneComponent(component: ICAL.Component): ICAL.Component {
  return new ICAL.Component(structuredClone(component.toJSON()));
}

/** A component of `name` rebuilt from kept extras (a fresh one when there are none or they do not parse). */
export function componentFromExtras(extras: unknown, name: string): ICAL.Component {
  if (typeof extras === 'string' && extras.length > 0) {
    try {
      const component = new ICAL.Component(ICAL.parse(extras));
      if (component.name === name) return component;
    } catch {
      // kept text that no longer parses: start afresh
    }
  }
  return new ICAL.Component(name);
}

/** Sets a text property, or removes it when the value is empty. */
export function setText(component: ICAL.Component, name: string, value: unknown): void {
  component.removeAllProperties(name);
  if (typeof value === 'string' && value.length > 0) component.addPropertyWithValue(name, value);
}

/** The first value of a text property, or null. */
export function textOf(component: ICAL.Component, name: string): string | null {
  const value = component.getFirstPropertyValue(name);
  return typeof value === 'string' && value.length > 0 ? value : null;
}
