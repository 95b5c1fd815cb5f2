import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { THEMES, Theme } from '../../users/user.entity';

export class UpdateThemeDto {
  @ApiProperty({ enum: THEMES, example: 'dark' })
  @IsIn(THEMES)
  theme!: Theme;
}
