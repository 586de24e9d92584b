/** The service clock as the admin API and startCumulo() show it (a file of its own: the package's types need nothing else). */
export interface ClockView {
  /** Service-clock time. */
  now: string;
  /** How far the operator has moved the service clock, in total. */
  offset_seconds: number;
  /** With a seed the clock is logical: it moves only by requests and advances. */
  logical: boolean;
}
