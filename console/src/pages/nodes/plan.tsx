import { megabytes, type NodeType } from './model.ts';

/** A plan's specs and price, as a card under the plan's choice. */
export function PlanFacts({ type }: { type: NodeType }) {
  return (
    <dl className="plan-facts" aria-label={`Plan ${type.label}`}>
      <div>
        <dt>vCPUs</dt>
        <dd>{type.vcpus}</dd>
      </div>
      <div>
        <dt>Memory</dt>
        <dd>{megabytes(type.memory)}</dd>
      </div>
      <div>
        <dt>Disk</dt>
        <dd>{megabytes(type.disk)}</dd>
      </div>
      <div>
        <dt>Transfer</dt>
        <dd>{type.transfer / 1000} TB</dd>
      </div>
      <div>
        <dt>Monthly</dt>
        <dd>${type.price.monthly.toFixed(2)}</dd>
      </div>
      <div>
        <dt>Hourly</dt>
        <dd>${type.price.hourly}</dd>
      </div>
    </dl>
  );
}
