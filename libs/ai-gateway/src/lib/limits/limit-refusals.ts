import { ProviderError } from '@arbor/provider-adapters';

// The key's own limits, refused in OpenAI-format terms: 429 for rates (RateLimitError in the SDKs),
// 400 budget_exceeded for money (LiteLLM's type, code and message).

/** LiteLLM's words first (scripts match them), then the level that refused: the key's max_budget, or a level of budgets/. */
export const budgetExceeded = (currentCost: number, maxBudget: number, level = "the key's max_budget") =>
  new ProviderError(400, 'budget_exceeded', `Budget has been exceeded! Current cost: ${currentCost}, Max budget: ${maxBudget} (${level})`, 'budget_exceeded');

/**
 * The budget has room, but not once the calls in flight have settled at their worst-case cost:
 * refused as an exceeded budget (LiteLLM's words, so scripts treat it as one), saying how much the
 * calls in flight hold; the next call after they settle may pass.
 */
export const budgetHeldInFlight = (currentCost: number, maxBudget: number, held: number, level = "the key's max_budget") =>
  new ProviderError(
    400,
    'budget_exceeded',
    `Budget has been exceeded! Current cost: ${currentCost}, Max budget: ${maxBudget} (${level}: calls in flight hold ${held} of it at their worst-case cost until they finish)`,
    'budget_exceeded',
  );

export const parallelRequestsExceeded = (limit: number, headers: Record<string, string>) =>
  new ProviderError(
    429,
    'rate_limit_exceeded',
    `This key already has ${limit} requests in flight (max_parallel_requests). Retry when one finishes.`,
    'max_parallel_requests_exceeded',
    null,
    headers,
  );

export const requestsPerMinuteExceeded = (limit: number, retryAfterS: number, headers: Record<string, string>) =>
  new ProviderError(
    429,
    'rate_limit_exceeded',
    `Rate limit reached for this key: ${limit} requests per minute (rpm_limit). Try again in ${retryAfterS}s.`,
    'rate_limit_exceeded',
    null,
    { ...headers, 'retry-after': String(retryAfterS) },
  );

export const tokensPerMinuteExceeded = (limit: number, used: number, retryAfterS: number, headers: Record<string, string>) =>
  new ProviderError(
    429,
    'rate_limit_exceeded',
    `Rate limit reached for this key: ${limit} tokens per minute (tpm_limit), ${used} used. Try again in ${retryAfterS}s.`,
    'rate_limit_exceeded',
    null,
    { ...headers, 'retry-after': String(retryAfterS) },
  );

/** A key's rpm or tpm on one alias (LiteLLM's model_rpm_limit / model_tpm_limit). */
export const modelRateExceeded = (alias: string, kind: 'requests' | 'tokens', limit: number, retryAfterS: number, headers: Record<string, string>) =>
  new ProviderError(
    429,
    'rate_limit_exceeded',
    `Rate limit reached for this key on "${alias}": ${limit} ${kind} per minute (model_${kind === 'requests' ? 'rpm' : 'tpm'}_limit). Try again in ${retryAfterS}s.`,
    'rate_limit_exceeded',
    null,
    { ...headers, 'retry-after': String(retryAfterS) },
  );
