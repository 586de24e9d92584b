import { Choice, Field } from '../../ui.tsx';
import { megabytes, type NodeType, planText, type Region, regionText } from './model.ts';

interface ChoiceProps<T> {
  /** What may be chosen; undefined while it loads. */
  options: T[] | undefined;
  value: string;
  onChange: (id: string) => void;
  error: unknown;
  label?: string;
  hint?: string;
}

/** The region a node (or an image) goes to, its field named `region` for the API's errors. */
export function RegionField({ options, value, onChange, error, label = 'Region', hint }: ChoiceProps<Region>) {
  return (
    <Field label={label} name="region" error={error} hint={hint}>
      {(p) => (
        <Choice
          {...p}
          value={value}
          onChange={onChange}
          empty="Choose a region"
          options={options?.map((r) => ({ value: r.id, text: regionText(r) }))}
        />
      )}
    </Field>
  );
}

/** A node's plan (its type) with its specs and price, its field named `type` for the API's errors. */
export function PlanField({ options, value, onChange, error, label = 'Type', hint }: ChoiceProps<NodeType>) {
  return (
    <Field label={label} name="type" error={error} hint={hint}>
      {(p) => (
        <Choice
          {...p}
          value={value}
          onChange={onChange}
          empty="Choose a plan"
          options={options?.map((t) => ({ value: t.id, text: planText(t) }))}
        />
      )}
    </Field>
  );
}

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
