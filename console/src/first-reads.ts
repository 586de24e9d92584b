/**
 * The reads the console's first page makes, started as soon as the page's HTML is read: this file is
 * built on its own and put inline in index.html (vite.config.ts), so the answers are on their way
 * while the console's script downloads and compiles. The console takes each answer once, for the
 * same request with the same token (api.ts `send`); a read nobody takes is only a read.
 *
 * What it asks for is what the pages ask for, made by the same functions (page-requests.ts).
 */
import { eventsRequest, type FirstRead, firstReads } from './page-requests.ts';
import { currentAccessToken } from './tokens.ts';

const token = currentAccessToken();
const reads = new Map<string, FirstRead>();
window.cumuloFirstReads = reads;
if (token && !new URLSearchParams(window.location.search).has('code')) {
  const route = window.location.hash.replace(/^#\/?/, '');
  for (const request of [...firstReads(route), eventsRequest()]) {
    reads.set(request.key, {
      token,
      sentAt: performance.now(),
      answer: fetch(`/v4${request.url}`, { headers: { authorization: `Bearer ${token}`, ...request.headers } }),
    });
  }
}
