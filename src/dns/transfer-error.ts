/** Why a zone transfer failed: the importer turns each into a 400 on the field naming the server. */
export type ZoneTransferFailure =
  /** The host does not resolve, refuses the connection or cannot be reached. */
  | 'unreachable'
  /** The egress policy refuses the server's address: nothing was sent. */
  | 'not_allowed'
  | 'timeout'
  /** The server answered with an error code (REFUSED, NOTAUTH, ...). */
  | 'refused'
  /** Not an AXFR stream of the zone asked for: bad data, no opening or closing SOA, foreign records. */
  | 'malformed'
  /** Nothing but the SOA. */
  | 'empty'
  | 'too_large';

export class ZoneTransferError extends Error {
  readonly code: ZoneTransferFailure;

  constructor(code: ZoneTransferFailure, message: string) {
    super(message);
    this.name = 'ZoneTransferError';
    this.code = code;
  }
}
