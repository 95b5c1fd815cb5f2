import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, ValidateNested } from 'class-validator';
import { Omittable } from '@arbor/platform';
import { IsDescription, IsDisplayName, IsProjectSlug, IsSelectionNames, IsServerId, IsUpstreamName } from './admin-fields';

/** What a server takes from one upstream; each kind `'*'` (the default) or the names as the upstream gives them. */
export class SelectionDto {
  @IsUpstreamName()
  upstream!: string;

  @IsOptional()
  @IsSelectionNames()
  tools?: '*' | string[];

  /** Resource URIs and resource template URI templates. */
  @IsOptional()
  @IsSelectionNames()
  resources?: '*' | string[];

  @IsOptional()
  @IsSelectionNames()
  prompts?: '*' | string[];
}

const IsSelections = () => applyDecorators(IsArray(), ArrayMaxSize(100), ValidateNested({ each: true }), Type(() => SelectionDto));

export class CreateServerDto {
  @IsServerId()
  id!: string;

  @IsProjectSlug()
  project!: string;

  /** Default: the id. */
  @IsOptional()
  @IsDisplayName()
  name?: string;

  @IsOptional()
  @IsDescription()
  description?: string;

  /** As in MCPGW_CONFIG: `[{upstream, tools, resources, prompts}]`. */
  @IsSelections()
  upstreams!: SelectionDto[];
}

/** Fields left out stay as they are; `description: null` clears it; `upstreams` replaces the selections. */
export class UpdateServerDto {
  @Omittable()
  @IsProjectSlug()
  project?: string;

  @Omittable()
  @IsDisplayName()
  name?: string;

  @IsOptional()
  @IsDescription()
  description?: string | null;

  @Omittable()
  @IsSelections()
  upstreams?: SelectionDto[];
}
