export interface OperatorSettingTable {
  /** `clock.offset_ms`, `faults.requests`, `transition.<kind>`, `region.<id>`. */
  key: string;
  /** JSON. */
  value: string;
}
