/** The only source of "now" for the domain, so tests can fix and advance time. */
export interface Clock {
  /** Current instant. Successive calls never go backwards. */
  now(): Date;
}
