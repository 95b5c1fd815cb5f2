import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { RepositorySecretController } from './repository-secret.controller';
import { RepositorySecretReencryption } from './repository-secret-reencryption';
import { RepositorySecretService } from './repository-secret.service';

@Module({
  imports: [ProjectsModule],
  controllers: [RepositorySecretController],
  providers: [RepositorySecretService, RepositorySecretReencryption],
})
export class RepositorySecretModule {}
