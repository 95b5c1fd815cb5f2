// The fixture product's own API as its UI calls it, in the shape openapi-typescript writes.

/** GET /api/v1/hello: who the product's API found in the bearer token. */
export interface Hello {
  product: string;
  username: string;
}

export interface paths {
  '/api/v1/hello': { get: { responses: { 200: { content: { 'application/json': Hello } } } } };
}

/** The product's key in the suite: CP_SUITE_FIXTURE_PRODUCT_URL, permission keys fixture-product.*. */
export const FIXTURE_PRODUCT = { key: 'fixture-product', title: 'Fixture product' };
