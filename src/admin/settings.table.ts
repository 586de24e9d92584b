export interface OperatorSettingTable {
  /** `clock.offset_ms`, `faults.requests`, `transition.<kind>`, `region.<id>`. */
  key: string;
  /** JSON. */
  value: string;
}

declare module '../db/database.ts' {
  interface Database {
    operator_settings: OperatorSettingTable;
  }
}
