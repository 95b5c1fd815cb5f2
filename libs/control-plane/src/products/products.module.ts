import { Module } from '@nestjs/common';
import { ProductCatalog } from './product-catalog';
import { ProductsController } from './products.controller';

@Module({
  controllers: [ProductsController],
  providers: [ProductCatalog],
  exports: [ProductCatalog],
})
export class ProductsModule {}
