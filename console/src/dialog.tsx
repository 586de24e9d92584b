import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from 'react';

export interface Question {
  /** What is about to happen, as a title: "Delete node web-1?" */
  title: string;
  /** What it means: what is lost, what stops. */
  body: ReactNode;
  /** The confirming button's text: the action itself ("Delete", "Reboot"). */
  action: string;
  /** A loss that cannot be undone: the button is red. */
  danger?: boolean;
}

type Ask = (question: Question) => Promise<boolean>;
const DialogContext = createContext<Ask>(async () => false);

/**
 * Asks before a destructive or disruptive action, in a modal `<dialog>` that names what will happen.
 * Escape or Cancel says no; focus starts on Cancel, so Enter alone never confirms a loss.
 */
export function DialogProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState<{ question: Question; answer: (yes: boolean) => void } | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const ask = useCallback<Ask>((question) => new Promise((answer) => setOpen({ question, answer })), []);

  useEffect(() => {
    const element = dialog.current;
    if (!open || !element) return;
    if (!element.open) element.showModal();
    cancel.current?.focus();
  }, [open]);

  const close = (yes: boolean) => {
    open?.answer(yes);
    setOpen(null);
    dialog.current?.close();
  };

  return (
    <DialogContext.Provider value={ask}>
      {children}
      <dialog
        ref={dialog}
        className="confirm"
        aria-labelledby="confirm-title"
        aria-describedby="confirm-body"
        onCancel={(event) => {
          event.preventDefault();
          close(false);
        }}
      >
        {open && (
          <form
            method="dialog"
            onSubmit={(event) => {
              event.preventDefault();
              close(true);
            }}
          >
            <h2 id="confirm-title">{open.question.title}</h2>
            <div id="confirm-body">{open.question.body}</div>
            <div className="dialog-buttons">
              <button type="button" ref={cancel} onClick={() => close(false)}>
                Cancel
              </button>
              <button type="submit" className={open.question.danger ? 'danger' : 'primary'}>
                {open.question.action}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </DialogContext.Provider>
  );
}

/** `confirm(question)`: resolves true when the user confirms. */
export function useConfirm(): Ask {
  return useContext(DialogContext);
}
