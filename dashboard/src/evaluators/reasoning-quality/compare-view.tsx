// reasoning-quality's own section of the compare page: per strategy, the models whose rank moved.
import type { ReasoningQualityRunsComparison } from "@assay/sdk";
import { rankChanges } from "./compare.ts";

export function RankChangesSection({ c }: { c: ReasoningQualityRunsComparison }) {
  const ranks = rankChanges(c);
  return (
    <section aria-labelledby="cmp-ranks">
      <h2 id="cmp-ranks">Rank changes</h2>
      {ranks.length === 0 ? (
        <p class="hint">No model changed rank in any strategy.</p>
      ) : (
        <div class="table-wrap">
          <table class="cmp-ranks">
            <thead>
              <tr>
                <th scope="col">strategy</th>
                <th scope="col">model</th>
                <th scope="col" class="num">
                  base rank
                </th>
                <th scope="col" class="num">
                  head rank
                </th>
              </tr>
            </thead>
            <tbody>
              {ranks.map((r) => (
                <tr key={`${r.strategy}/${r.model}`}>
                  <td>{r.strategy}</td>
                  <th scope="row">{r.model}</th>
                  <td class="num">{r.base ?? "–"}</td>
                  <td class="num">{r.head ?? "–"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
