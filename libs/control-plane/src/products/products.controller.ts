import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Authenticated } from '@arbor/auth';
import { ProductListResponse, ProductResponse } from './dto/product.response';
import { ProductCatalog } from './product-catalog';

@ApiTags('products')
@ApiBearerAuth()
@Controller('api/v1/products')
export class ProductsController {
  constructor(private readonly catalog: ProductCatalog) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: 'The managed products with their sign-in key and role keys' })
  @ApiOkResponse({ type: ProductListResponse })
  @ApiUnauthorizedResponse({ description: 'No valid bearer token.' })
  list(): ProductListResponse {
    return { products: this.catalog.list().map((product) => ProductResponse.of(product)) };
  }
}
