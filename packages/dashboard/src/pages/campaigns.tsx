import { useEffect, useState } from 'preact/hooks';
import { get } from '../api.js';
import { when } from '../format.js';
import type { CampaignList } from '../types.js';

/** Campaigns: the campaigns the server's client detected, with their indicators. */
export function CampaignsPage() {
  const [list, setList] = useState<CampaignList | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    get<CampaignList>('campaigns').then(setList, (caught: Error) => setError(caught.message));
  }, []);
  return (
    <section aria-labelledby="campaigns-title">
      <h1 id="campaigns-title">Campaigns</h1>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!list ? (
        !error ? (
          <p>Loading…</p>
        ) : null
      ) : !list.enabled ? (
        <p>Campaign tracking is off on this server (campaigns.enabled).</p>
      ) : list.campaigns.length === 0 ? (
        <p>No campaign detected yet: a campaign is several threats sharing a malware family, a tag or a report.</p>
      ) : (
        <table data-testid="campaigns">
          <caption>Detected campaigns, latest first</caption>
          <thead>
            <tr>
              <th scope="col">Shared by</th>
              <th scope="col">Indicators</th>
              <th scope="col">Sources</th>
              <th scope="col">First seen</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {list.campaigns.map((campaign) => (
              <tr key={campaign.campaign}>
                <th scope="row">
                  {campaign.sharedBy.kind}: {campaign.sharedBy.value}
                </th>
                <td>
                  {campaign.indicatorCount}: {campaign.indicators.join(', ')}
                </td>
                <td>{campaign.sources.join(', ')}</td>
                <td>{when(campaign.firstSeen)}</td>
                <td>{when(campaign.lastSeen)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
