import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** What a row description leaves on pg's Result (pg/lib/result.js), and all that reading rows needs of it. */
export interface RowDescription {
  fields: { name: string; dataTypeID: number; format?: string }[];
  _parsers: ((value: unknown) => unknown)[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
}

interface PgResult extends RowDescription {
  rows: unknown[];
}

interface Connection {
  bind(options: { portal: string; statement: string; values: unknown[]; binary: boolean; valueMapper: unknown }): void;
  sync(): void;
}

/** The parts of pg's own Query class (pg/lib/query.js) this one builds on. */
declare class PgQuery {
  constructor(text: string, values: unknown[], callback: (error: Error | null, result: PgResult) => void);
  name: string;
  values: unknown[];
  portal: string;
  binary: boolean;
  rows: number | undefined;
  _result: PgResult;
  _results: PgResult;
  _accumulateRows: boolean;
  hasBeenParsed(connection: Connection): boolean;
  prepare(connection: Connection): void;
  handleRowDescription(message: unknown): void;
  handleCommandComplete(message: unknown, connection: Connection): void;
  handleError(error: unknown, connection: Connection): void;
  _getRows(connection: Connection, rows: number | undefined): void;
}

// pg's own classes: a query pg accepts on a pipelined connection must be one of its Query (a custom
// submittable is refused there), and its rows are read by pg's Result.
const Query = require('pg/lib/query.js') as typeof PgQuery;
const Result = require('pg/lib/result.js') as new (rowMode: string | undefined, types: unknown) => PgResult;
const { prepareValue } = require('pg/lib/utils.js') as { prepareValue: unknown };

/**
 * A run of a named prepared statement that asks PostgreSQL for its row description only the first
 * time on a connection. pg asks on every run (a Describe of the portal), so the server sends the
 * statement's columns, names and types with each answer and pg reads them again: for a node view,
 * 23 columns, as many bytes as the row itself; for a create's node insert, every column of the
 * table. Here the description the first run gets (or that it has none: a statement that returns no
 * rows) is kept in `descriptions`, one map a connection as a statement is prepared a connection,
 * and each later run is Bind, Execute and Sync. The query is made from its text, not from a config
 * object (which pg copies property by property on every query).
 */
export class DescribedOnceQuery extends Query {
  readonly #descriptions: Map<string, RowDescription>;
  /** Set while a description asked for has not come: a statement that returns no rows (an insert) gets none. */
  #awaitingDescription = false;

  constructor(
    text: string,
    values: unknown[],
    name: string,
    arrays: boolean,
    descriptions: Map<string, RowDescription>,
    callback: (error: Error | null, result: PgResult) => void,
  ) {
    super(text, values, callback);
    this.name = name;
    if (arrays) this._result = this._results = new Result('array', undefined);
    this.#descriptions = descriptions;
  }

  override prepare(connection: Connection): void {
    const known = this.#descriptions.get(this.name);
    if (!known || !this.hasBeenParsed(connection)) {
      this.#awaitingDescription = true;
      super.prepare(connection);
      return;
    }
    try {
      connection.bind({
        portal: this.portal,
        statement: this.name,
        values: this.values,
        binary: this.binary,
        valueMapper: prepareValue,
      });
    } catch (error) {
      connection.sync();
      this.handleError(error, connection);
      return;
    }
    const result = this._result;
    result.fields = known.fields;
    result._parsers = known._parsers;
    result._prebuiltEmptyResultObject = known._prebuiltEmptyResultObject;
    this._accumulateRows = true;
    this._getRows(connection, this.rows);
  }

  override handleRowDescription(message: unknown): void {
    super.handleRowDescription(message);
    this.#awaitingDescription = false;
    const { fields, _parsers, _prebuiltEmptyResultObject } = this._result;
    this.#descriptions.set(this.name, { fields, _parsers, _prebuiltEmptyResultObject });
  }

  override handleCommandComplete(message: unknown, connection: Connection): void {
    if (this.#awaitingDescription) {
      this.#awaitingDescription = false;
      this.#descriptions.set(this.name, { fields: [], _parsers: undefined, _prebuiltEmptyResultObject: null });
    }
    super.handleCommandComplete(message, connection);
  }
}
