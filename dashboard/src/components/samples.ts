// Every sample of a run, page by page through the SDK (100 a page, the API's maximum), for the views
// that draw from samples: chain-determinism's sequence view and rpl's strip plot.
import { useEffect, useState } from "preact/hooks";
import { listSamples, type Sample } from "@assay/sdk";
import { eachItem } from "@assay/sdk/pages";
import { call, client } from "../api.ts";

/** The API's largest page. */
const PAGE = 100;

export type SamplesState<T> = { samples: T[] | null; loaded: number; error: string | null };

export function useAllSamples<T extends Sample>(runId: string): SamplesState<T> {
  const [state, setState] = useState<SamplesState<T>>({ samples: null, loaded: 0, error: null });
  useEffect(() => {
    let live = true;
    setState({ samples: null, loaded: 0, error: null });
    (async () => {
      const all: T[] = [];
      const pages = eachItem((after) =>
        call(listSamples({ client, path: { run_id: runId }, query: { limit: PAGE, after } })),
      );
      for await (const sample of pages) {
        if (!live) return;
        all.push(sample as T);
        // A page's worth more: say how far the loading got.
        if (all.length % PAGE === 0) setState({ samples: null, loaded: all.length, error: null });
      }
      if (live) setState({ samples: all, loaded: all.length, error: null });
    })().catch((e: Error) => live && setState((s) => ({ ...s, error: e.message })));
    return () => {
      live = false;
    };
  }, [runId]);
  return state;
}
