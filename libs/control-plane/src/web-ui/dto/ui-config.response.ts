import { ApiProperty } from '@nestjs/swagger';
import { ControlPlaneConfig } from '@arbor/config';

export class SuiteModuleResponse {
  @ApiProperty({ example: 'ai-gateway', description: 'The product key (`control-plane` for this service).' })
  key!: string;

  @ApiProperty({ example: 'http://localhost:4000', description: 'CP_SUITE_<PRODUCT>_URL: the module rail link, and the base of its dashboard summary.' })
  url!: string;
}

/** Public facts the single-page app reads before anyone signs in, so one build runs against any issuer. */
export class UiConfigResponse {
  @ApiProperty({ example: 'http://localhost:8090/realms/arbor', description: 'CP_OIDC_ISSUER_URL.' })
  issuer!: string;

  @ApiProperty({ example: 'arbor-control-plane', description: 'CP_OIDC_CLIENT_ID: the public client (authorisation code + PKCE).' })
  client_id!: string;

  @ApiProperty({ example: 'http://localhost:8080', description: 'CP_PUBLIC_URL.' })
  public_url!: string;

  @ApiProperty({
    type: [SuiteModuleResponse],
    description: 'The control plane first, then every product with a CP_SUITE_<PRODUCT>_URL, by key.',
  })
  modules!: SuiteModuleResponse[];

  static of(config: ControlPlaneConfig): UiConfigResponse {
    const products = config.productKeys.filter((key) => config.suiteUrls[key] !== undefined).map((key) => ({ key, url: config.suiteUrls[key] }));
    return {
      issuer: config.CP_OIDC_ISSUER_URL,
      client_id: config.CP_OIDC_CLIENT_ID,
      public_url: config.CP_PUBLIC_URL,
      modules: [{ key: 'control-plane', url: config.suiteUrls['control-plane'] ?? config.CP_PUBLIC_URL }, ...products],
    };
  }
}
