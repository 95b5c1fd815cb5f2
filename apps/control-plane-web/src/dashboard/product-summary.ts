import { type ControlPlaneSchemas } from '@arbor/ui-shell';

/** `GET /api/v1/dashboard/summary` of any product (the contract's DashboardSummary). */
export type DashboardSummary = Omit<ControlPlaneSchemas['DashboardSummaryResponse'], 'tiles'> & { tiles: DashboardTile[] };
/** A product may add a per-project breakdown to a figure (the contract's DashboardTile). */
export type DashboardTile = ControlPlaneSchemas['DashboardTileResponse'] & { breakdown?: { project: string; value: number | string }[] };

/** How one product's card turned out: its summary, or why there is none. */
export type CardOutcome = { state: 'ok'; summary: DashboardSummary } | { state: 'timeout' | 'down' | 'refused' | 'no-summary' | 'broken'; detail: string };

export const SUMMARY_TIMEOUT_MS = 5000;

/**
 * Asks one product for the person's summary with their token. Never throws: a product that is
 * down, slow, refuses or answers nonsense becomes a card in that state, and the others go on.
 */
export async function fetchProductSummary(baseUrl: string, accessToken: string | undefined, timeoutMs = SUMMARY_TIMEOUT_MS): Promise<CardOutcome> {
  let response: Response;
  try {
    response = await fetch(new URL('/api/v1/dashboard/summary', baseUrl), {
      headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') return { state: 'timeout', detail: `No answer within ${timeoutMs / 1000} s.` };
    // A refused connection and a CORS refusal look the same to a page.
    return { state: 'down', detail: 'The product could not be reached (down, or it does not allow this page to call it).' };
  }
  if (response.status === 401 || response.status === 403) return { state: 'refused', detail: `The product refused to show you a summary (${response.status}).` };
  if (response.status === 404) return { state: 'no-summary', detail: 'The product does not serve a dashboard summary yet.' };
  if (!response.ok) return { state: 'broken', detail: `The product answered ${response.status}.` };
  try {
    const body = (await response.json()) as DashboardSummary;
    if (typeof body?.title !== 'string' || !Array.isArray(body.tiles)) return { state: 'broken', detail: 'The product answered something that is not a summary.' };
    return { state: 'ok', summary: body };
  } catch {
    return { state: 'broken', detail: 'The product answered something that is not JSON.' };
  }
}
