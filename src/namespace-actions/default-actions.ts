/**
 * The declarations every project has unless ACTIONS_FILE declares the endpoint for it (docs/rules.md#namespace-actions):
 * the examples of the original API description. A TypeScript module, not a .json file, so that it is
 * part of the build (`tsc` does not copy JSON files to dist/). Validated like a file at start-up.
 */

const money = (centAmount: number) => ({ fractionDigits: 2, centAmount, currencyCode: 'EUR' });

/** The cart-like object of spec part 2. */
export const EXAMPLE_CART = {
  cartId: 'a6b2c3d4-1e2f-4a5b-8c9d-0e1f2a3b4c5d',
  cartVersion: '3',
  lineItems: [
    {
      lineItemId: '7f1e2d3c-4b5a-4968-8776-655443322110',
      productId: '0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5',
      name: 'Leather sneaker',
      type: 'variant',
      count: 1,
      price: money(12900),
      discountTexts: [],
      discounts: [],
      totalPrice: money(12900),
      variant: {
        id: '1',
        sku: 'SNK-0042-WHT-42',
        images: ['https://images.example.com/products/snk-0042-white.jpg'],
        groupId: 'SNK-0042',
        attributes: {
          articleNumberManufacturer: 'SNK0042',
          articleNumberMax: '4200042',
          matrixId: 'M-0042',
          baseId: 'B-0042',
          colorFreeDefinition: 'white',
          size: '42',
          season: 'SS26',
          designer: { key: 'studio-nord', label: 'Studio Nord' },
          madeInItaly: { key: 'yes', label: 'Yes' },
          commonSize: { key: 'm', label: 'M' },
          color: { key: 'white', label: 'White' },
          style: { key: 'casual', label: 'Casual' },
          gender: { key: 'unisex', label: 'Unisex' },
        },
        price: money(12900),
        isOnStock: true,
      },
      isGift: false,
      _url: '/sneakers/leather-sneaker/p/SNK-0042-WHT-42',
    },
  ],
  sum: money(12900),
  shippingAddress: {},
  billingAddress: {},
  payments: [],
  discountCodes: [],
};

/** The default declarations, in the ACTIONS_FILE format. */
export const DEFAULT_ACTIONS = {
  actions: [
    { method: 'POST', path: 'namespace-action', handler: { type: 'store', key: 'namespace-action' } },
    { method: 'GET', path: 'namespace-action', handler: { type: 'store', key: 'namespace-action' } },
    { method: 'GET', path: 'namespace-action-with-example', handler: { type: 'static', status: 200, body: EXAMPLE_CART } },
    { method: 'GET', path: 'namespace-action-with-headers', handler: { type: 'static', status: 200, body: EXAMPLE_CART } },
    { method: 'PUT', path: 'json-serializable-primitive-type', handler: { type: 'store', key: 'json-serializable-primitive-type' } },
  ],
};
