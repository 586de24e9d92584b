import { Component, type ReactNode, Suspense } from 'react';

interface State {
  error: Error | null;
}

/** Shows a failure to load a part's code (or to draw it) instead of a blank page. */
class PartBoundary extends Component<{ what: string; children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="error" role="alert">
        <p>
          The {this.props.what} could not be loaded: {error.message}
        </p>
        {/* A code chunk that failed to load stays failed in this page: load the page again. */}
        <button type="button" className="small" onClick={() => window.location.reload()}>
          Retry
        </button>
      </div>
    );
  }
}

/** A part whose code is loaded when first shown (React.lazy): "Loading…" meanwhile, its failure with a Retry. */
export function LazyPart({ what, children }: { what: string; children: ReactNode }) {
  return (
    <PartBoundary what={what}>
      <Suspense fallback={<p className="muted">Loading the {what}…</p>}>{children}</Suspense>
    </PartBoundary>
  );
}
