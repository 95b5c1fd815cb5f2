import { ApiProperty } from '@nestjs/swagger';
import { Product, PRODUCT_ROLES } from '../product-catalog';

export class ProductRoleResponse {
  @ApiProperty({ example: 'ai-gateway.operator', description: 'The role key, `<product>.<role>`.' })
  key!: string;

  @ApiProperty({ enum: PRODUCT_ROLES, example: 'operator' })
  role!: string;
}

export class ProductResponse {
  @ApiProperty({ example: 'ai-gateway', description: 'The product key, from CP_SUITE_<PRODUCT>_URL or CP_<PRODUCT>_API_URL.' })
  key!: string;

  @ApiProperty({ example: 'ai-gateway', description: 'The sign-in key (equal to the product key). A role key counts only together with it.' })
  sign_in_key!: string;

  @ApiProperty({ type: [ProductRoleResponse] })
  roles!: ProductRoleResponse[];

  @ApiProperty({ type: String, nullable: true, example: 'http://localhost:4000', description: 'CP_SUITE_<PRODUCT>_URL; null when only the API URL is set.' })
  suite_url!: string | null;

  @ApiProperty({ description: 'CP_<PRODUCT>_API_URL is set: project changes are synced to the product.' })
  sync_enabled!: boolean;

  static of(product: Product): ProductResponse {
    return {
      key: product.key,
      sign_in_key: product.signInKey,
      roles: product.roles.map(({ key, role }) => ({ key, role })),
      suite_url: product.suiteUrl,
      sync_enabled: product.syncEnabled,
    };
  }
}

export class ProductListResponse {
  @ApiProperty({ type: [ProductResponse] })
  products!: ProductResponse[];
}
