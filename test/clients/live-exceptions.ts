/**
 * Where this server's answers differ from the live service's on purpose: the service description
 * says otherwise (it wins where it speaks). One entry a key path; `operation` '*' for every
 * operation that answers with it. Each entry quotes the description's words.
 */
export interface LiveException {
  operation: string;
  path: string;
  description: string;
}

export const LIVE_EXCEPTIONS: readonly LiveException[] = [];
