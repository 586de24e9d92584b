import { useId } from 'react';
import { useToast } from '../../toast.tsx';

/**
 * A secret the API gives only once (a new token, an OAuth client's secret), with a Copy button,
 * until the user says it is kept.
 */
export function ShownOnce({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  const say = useToast();
  const id = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      say('Copied');
    } catch {
      say('The browser would not copy it: select the text and copy it yourself', 'failed');
    }
  };
  return (
    <section className="shown-once" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p>It is shown only now: copy it and keep it somewhere safe.</p>
      <code className="mono secret" data-secret="">
        {value}
      </code>
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" className="quiet" onClick={onDone}>
          I have kept it
        </button>
      </div>
    </section>
  );
}
