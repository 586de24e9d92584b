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

/** A choice among catalog items (regions, plans), its field named `name` for the API's errors. */
function CatalogField<T extends { id: string }>(
  props: ChoiceProps<T> & { name: string; label: string; empty: string; text: (item: T) => string },
) {
  const { options, value, onChange, error, label, hint, name, empty, text } = props;
  return (
    <Field label={label} name={name} error={error} hint={hint}>
      {(p) => (
        <Choice
          {...p}
          value={value}
          onChange={onChange}
          empty={empty}
          options={options?.map((item) => ({ value: item.id, text: text(item) }))}
        />
      )}
    </Field>
  );
}

/** The region a node (or an image) goes to, its field named `region` for the API's errors. */
export function RegionField(props: ChoiceProps<Region>) {
  return <CatalogField {...props} name="region" label={props.label ?? 'Region'} empty="Choose a region" text={regionText} />;
}

/** A node's plan (its type) with its specs and price, its field named `type` for the API's errors. */
export function PlanField(props: ChoiceProps<NodeType>) {
  return <CatalogField {...props} name="type" label={props.label ?? 'Type'} empty="Choose a plan" text={planText} />;
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
