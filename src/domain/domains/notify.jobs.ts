import { sendNotify } from '../../dns/notify-client.ts';
import type { JobHandler } from '../../jobs/handler.ts';
import { egressGateFor } from '../networking/egress.service.ts';
import { findDomainById } from './domain.repository.ts';
import { NOTIFY_JOB } from './domain-change.ts';

/** How many times a NOTIFY is sent to a server that does not answer, each waiting CUMULO_DNS_TIMEOUT_MS. */
const NOTIFY_TRIES = 3;

/**
 * Tells the servers allowed to transfer a domain's zone (its `axfr_ips`, on CUMULO_DNS_NOTIFY_PORT)
 * that the zone changed (an address the egress policy refuses is sent nothing), as a primary nameserver tells its secondaries (RFC 1996), so that they
 * transfer it now rather than at their refresh time. Network only: the outcome is logged, nothing is
 * written, and a server that does not answer is not asked again (its refresh time still holds).
 */
const notifySecondaries: JobHandler = {
  kind: NOTIFY_JOB,
  parallel: true,
  async prepare({ ctx, payload }) {
    const domain = await findDomainById(ctx.db, Number(payload.domain_id));
    if (domain?.status !== 'active') return null;
    const hosts = JSON.parse(domain.axfr_ips) as string[];
    const gate = egressGateFor(ctx, domain.account_id);
    const sent = await Promise.all(
      hosts.map((host) =>
        sendNotify({
          host,
          port: ctx.config.dnsNotifyPort,
          zone: domain.domain,
          timeoutMs: ctx.config.dnsTimeoutMs,
          tries: NOTIFY_TRIES,
          gate,
        }),
      ),
    );
    ctx.log.info({ domain: domain.domain, notified: sent.map((s) => s.outcome) }, 'DNS NOTIFY sent');
    return null;
  },
  async run() {},
};

export const notifyJobs: readonly JobHandler[] = [notifySecondaries];
