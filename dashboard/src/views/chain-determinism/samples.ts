// Every sample of a run, page by page through the SDK (100 a page, the API's maximum), for the views
// that draw from samples: chain-determinism's sequence view and rpl's strip plot.
import { useEffect, useState } from "preact/hooks";
import { listSamples, type Sample } from "@assay/sdk";
import { call, client } from "../../api.ts";

export type SamplesState<T> = { samples: T[] | null; loaded: number; error: string | null };

export function useAllSamples<T extends Sample>(runId: string): SamplesState<T> {
  const [state, setState] = useState<SamplesState<T>>({ samples: null, loaded: 0, error: null });
  useEffect(() => {
    let live = true;
    setState({ samples: null, loaded: 0, error: null });
    (async () => {
      const all: T[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await call(listSamples({ client, path: { run_id: runId }, query: { limit: 100, after } }));
        if (!live) return;
        all.push(...(page.data as T[]));
        if (!page.has_more || !page.next_cursor) break;
        after = page.next_cursor;
        setState({ samples: null, loaded: all.length, error: null });
      }
      setState({ samples: all, loaded: all.length, error: null });
    })().catch((e: Error) => live && setState((s) => ({ ...s, error: e.message })));
    return () => {
      live = false;
    };
  }, [runId]);
  return state;
}
