import { ApiProperty } from '@nestjs/swagger';
import { EXAMPLE_CART } from './default-actions.js';

/*
 * OpenAPI shapes of the namespace-action answers: the cart-like object of spec part 2 that the default
 * declarations of `namespace-action-with-example` and `namespace-action-with-headers` answer.
 */

export class MoneyDto {
  @ApiProperty({ type: 'integer', example: 2 }) fractionDigits: number;
  @ApiProperty({ type: 'integer', example: 12900 }) centAmount: number;
  @ApiProperty({ example: 'EUR' }) currencyCode: string;
}

export class VariantDto {
  @ApiProperty() id: string;
  @ApiProperty() sku: string;
  @ApiProperty({ type: [String], description: 'Image URLs.' }) images: string[];
  @ApiProperty() groupId: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Strings: articleNumberManufacturer, articleNumberMax, matrixId, baseId, colorFreeDefinition, size, season; ' +
      '`{key, label}` objects: designer, madeInItaly, commonSize, color, style, gender.',
  })
  attributes: Record<string, unknown>;
  @ApiProperty({ type: () => MoneyDto }) price: MoneyDto;
  @ApiProperty() isOnStock: boolean;
}

export class LineItemDto {
  @ApiProperty() lineItemId: string;
  @ApiProperty() productId: string;
  @ApiProperty() name: string;
  @ApiProperty() type: string;
  @ApiProperty({ type: 'integer' }) count: number;
  @ApiProperty({ type: () => MoneyDto }) price: MoneyDto;
  @ApiProperty({ type: 'array', items: {} }) discountTexts: unknown[];
  @ApiProperty({ type: 'array', items: {} }) discounts: unknown[];
  @ApiProperty({ type: () => MoneyDto }) totalPrice: MoneyDto;
  @ApiProperty({ type: () => VariantDto }) variant: VariantDto;
  @ApiProperty() isGift: boolean;
  @ApiProperty({ description: 'A path.' }) _url: string;
}

export class CartDto {
  @ApiProperty({ example: EXAMPLE_CART.cartId }) cartId: string;
  @ApiProperty({ example: EXAMPLE_CART.cartVersion }) cartVersion: string;
  @ApiProperty({ type: () => [LineItemDto] }) lineItems: LineItemDto[];
  @ApiProperty({ type: () => MoneyDto }) sum: MoneyDto;
  @ApiProperty({ type: 'object', additionalProperties: true }) shippingAddress: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) billingAddress: Record<string, unknown>;
  @ApiProperty({ type: 'array', items: {} }) payments: unknown[];
  @ApiProperty({ type: 'array', items: {} }) discountCodes: unknown[];
}
