import { createContext, type ReactNode, useCallback, useContext, useRef, useState } from 'react';

export type ToastKind = 'done' | 'failed';
interface Toast {
  id: number;
  text: string;
  kind: ToastKind;
}

type Say = (text: string, kind?: ToastKind) => void;
const ToastContext = createContext<Say>(() => {});

/** How long a toast stays: long enough to read twice; a failure stays until dismissed. */
const SHOWN_MS = 6000;

/**
 * Says what an action did, in a polite live region at the corner of the page: every action ends in
 * one. A failure stays until its close button is pressed; the rest go by themselves.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const say = useCallback<Say>(
    (text, kind = 'done') => {
      const id = next.current++;
      setToasts((all) => [...all.slice(-3), { id, text, kind }]);
      if (kind === 'done') setTimeout(() => dismiss(id), SHOWN_MS);
    },
    [dismiss],
  );
  return (
    <ToastContext.Provider value={say}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.kind}`} data-kind={t.kind}>
            <span>{t.text}</span>
            <button type="button" className="small" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

/** `say(text, kind)`: shows a toast. */
export function useToast(): Say {
  return useContext(ToastContext);
}
